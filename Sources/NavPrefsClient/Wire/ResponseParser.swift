import Foundation

/// Reads an HTTP/1.1 answer as its bytes arrive: the head, then the body as it comes, by
/// `Content-Length`, chunked transfer coding, or up to the end of the connection (RFC 9112 §6).
/// Pure and incremental, so the event stream hands each piece on as soon as it is read.
struct ResponseParser: Sendable {
    enum Output: Sendable, Equatable {
        case head(status: Int, headers: [String: String])
        case body(Data)
        /// The answer is complete (the connection may then be closed).
        case end
    }

    enum Failure: Error, Equatable {
        case malformed(String)
    }

    private enum State: Sendable {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
        case done
    }

    private var state = State.head
    private var buffer: [UInt8] = []
    private static let maxHead = 64 * 1024

    /// Whether the answer was complete when the connection closed (an answer framed by the
    /// connection's end is complete then).
    var completeAtClose: Bool {
        switch state {
        case .done, .untilClose: true
        default: false
        }
    }

    mutating func feed(_ bytes: some Collection<UInt8>) throws(Failure) -> [Output] {
        buffer.append(contentsOf: bytes)
        var outputs: [Output] = []
        var progressed = true
        while progressed {
            progressed = try step(into: &outputs)
        }
        return outputs
    }

    /// One step of the state machine; whether it consumed anything.
    private mutating func step(into outputs: inout [Output]) throws(Failure) -> Bool {
        switch state {
        case .head:
            guard let end = Self.find([13, 10, 13, 10], in: buffer) else {
                if buffer.count > Self.maxHead { throw .malformed("an answer head longer than 64 KiB") }
                return false
            }
            let head = String(decoding: buffer[..<end], as: UTF8.self)
            buffer.removeFirst(end + 4)
            let (status, headers) = try Self.parseHead(head)
            outputs.append(.head(status: status, headers: headers))
            if status == 204 || status == 304 || (100..<200).contains(status) {
                state = .done
            } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                state = .chunkSize
            } else if let length = headers["content-length"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
                state = length == 0 ? .done : .fixed(remaining: length)
            } else {
                state = .untilClose
            }
            if case .done = state { outputs.append(.end) }
            return true
        case .fixed(let remaining):
            guard !buffer.isEmpty else { return false }
            let count = min(remaining, buffer.count)
            outputs.append(.body(Data(buffer[..<count])))
            buffer.removeFirst(count)
            state = count == remaining ? .done : .fixed(remaining: remaining - count)
            if case .done = state { outputs.append(.end) }
            return true
        case .chunkSize:
            guard let end = Self.find([13, 10], in: buffer) else { return false }
            let line = String(decoding: buffer[..<end], as: UTF8.self)
            buffer.removeFirst(end + 2)
            let digits = line.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard let size = Int(digits, radix: 16), size >= 0 else { throw .malformed("a chunk size of '\(line)'") }
            state = size == 0 ? .trailers : .chunkData(remaining: size)
            return true
        case .chunkData(let remaining):
            guard !buffer.isEmpty else { return false }
            let count = min(remaining, buffer.count)
            outputs.append(.body(Data(buffer[..<count])))
            buffer.removeFirst(count)
            state = count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            return true
        case .chunkDataEnd:
            guard buffer.count >= 2 else { return false }
            guard buffer[0] == 13, buffer[1] == 10 else { throw .malformed("a chunk without its CRLF") }
            buffer.removeFirst(2)
            state = .chunkSize
            return true
        case .trailers:
            guard let end = Self.find([13, 10], in: buffer) else { return false }
            buffer.removeFirst(end + 2)
            if end == 0 {
                state = .done
                outputs.append(.end)
            }
            return true
        case .untilClose:
            guard !buffer.isEmpty else { return false }
            outputs.append(.body(Data(buffer)))
            buffer.removeAll()
            return true
        case .done:
            buffer.removeAll()
            return false
        }
    }

    private static func parseHead(_ head: String) throws(Failure) -> (Int, [String: String]) {
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).makeIterator()
        guard let statusLine = lines.next(), statusLine.hasPrefix("HTTP/1."),
              let code = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw .malformed("not an HTTP/1.x status line") }
        var headers: [String: String] = [:]
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        return (code, headers)
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for start in 0...(bytes.count - pattern.count) where bytes[start] == pattern[0] {
            if bytes[start..<(start + pattern.count)].elementsEqual(pattern) { return start }
        }
        return nil
    }
}
