import Foundation
import NavPrefsStore

/// Reads a file (or standard input) one line at a time, in chunks, so that an import of any
/// size holds one chunk and one line in memory. A line longer than
/// ``TransferFormat/maxLineBytes`` is an error, not an unbounded buffer.
struct LineReader: TransferLineSource {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    /// Where the unread part of `buffer` starts.
    private var start = 0
    private var atEnd = false
    private let chunk = 1 << 20

    init(_ handle: FileHandle) { self.handle = handle }

    mutating func nextLine() throws -> [UInt8]? {
        var searched = start
        while true {
            if let newline = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return line
            }
            searched = buffer.count
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])  // the last line, without its newline
                start = buffer.count
                return line
            }
            guard buffer.count - start <= TransferFormat.maxLineBytes else {
                throw CommandFailure(.failure, "a line is longer than \(TransferFormat.maxLineBytes) bytes")
            }
            // Drop what was read before appending more, so the buffer holds about one chunk and one line.
            if start > 0 {
                buffer.removeFirst(start)
                searched -= start
                start = 0
            }
            guard let data = try handle.read(upToCount: chunk), !data.isEmpty else {
                atEnd = true
                continue
            }
            buffer.append(contentsOf: data)
        }
    }
}
