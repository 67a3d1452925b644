import Foundation
import NavPrefsStore
import Synchronization

/// Where a command writes what it produces: standard output, or a file that appears under its
/// name only once it is complete and on disk.
///
/// A file is written next to its final name (`NAME.partial`), readable by its owner only (an
/// export holds token hashes, maybe the stream-signing key), flushed to disk, then linked under
/// its name, which fails if the name exists: nothing is overwritten, and an interrupted run leaves
/// no file that looks whole.
final class OutputFile: Sendable {
    private struct State {
        var handle: FileHandle
        var pending = Data()
        var bytes = 0
        var failure: String?
    }

    /// The final name; `nil` for standard output.
    let path: String?
    private let partialPath: String?
    private let state: Mutex<State>

    /// Standard output.
    init() {
        path = nil
        partialPath = nil
        state = Mutex(State(handle: FileHandle.standardOutput))
    }

    /// The file `path`, which must not exist (exit 5 otherwise).
    init(path: String) throws(CommandFailure) {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure(.refused, "\(path) exists; remove it or choose another name")
        }
        let partial = path + ".partial"
        try? FileManager.default.removeItem(atPath: partial)  // what an interrupted run left
        guard FileManager.default.createFile(atPath: partial, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: partial)
        else {
            throw CommandFailure(.failure, "cannot create \(partial): \(unsafe String(cString: strerror(errno)))")
        }
        self.path = path
        partialPath = partial
        state = Mutex(State(handle: handle))
    }

    /// Bytes written so far.
    var bytes: Int { state.withLock { $0.bytes } }

    /// Appends `line` and a newline; writes out every 1 MiB. A failure (disk full) is kept for
    /// ``finish()`` and thrown to the caller, ending an export.
    func write(line: String) throws(StoreError) {
        try state.withLock { state throws(StoreError) in
            if let failure = state.failure { throw StoreError.unavailable(reason: failure) }
            state.pending.append(contentsOf: line.utf8)
            state.pending.append(UInt8(ascii: "\n"))
            state.bytes += line.utf8.count + 1
            if state.pending.count >= 1 << 20 { try Self.writePending(&state, path: path) }
        }
    }

    /// Writes what is pending; for a file, flushes it to disk and gives it its name.
    func finish() throws(CommandFailure) {
        try state.withLock { state throws(CommandFailure) in
            do throws(StoreError) {
                try Self.writePending(&state, path: path)
            } catch {
                throw CommandFailure(.failure, state.failure ?? "\(error)")
            }
            guard let path, let partialPath else { return }
            do {
                try state.handle.synchronize()
                try state.handle.close()
                try FileManager.default.linkItem(atPath: partialPath, toPath: path)
                try FileManager.default.removeItem(atPath: partialPath)
                try FileHandle(forReadingFrom: URL(fileURLWithPath: path).deletingLastPathComponent()).synchronize()
            } catch {
                throw CommandFailure(.failure, "cannot finish \(path): \(error.localizedDescription)")
            }
        }
    }

    /// Removes the partial file of a run that failed.
    func abandon() {
        guard let partialPath else { return }
        state.withLock { try? $0.handle.close() }
        try? FileManager.default.removeItem(atPath: partialPath)
    }

    private static func writePending(_ state: inout State, path: String?) throws(StoreError) {
        guard !state.pending.isEmpty else { return }
        do {
            try state.handle.write(contentsOf: state.pending)
            state.pending.removeAll(keepingCapacity: true)
        } catch {
            let failure = "cannot write \(path ?? "standard output"): \(error.localizedDescription)"
            state.failure = failure
            throw .unavailable(reason: failure)
        }
    }
}
