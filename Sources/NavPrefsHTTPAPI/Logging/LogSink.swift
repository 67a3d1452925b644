import Dispatch
import Foundation
import Synchronization

/// Where log lines go: a file descriptor, written in batches.
///
/// A request log line per request would cost a `write` system call each (microseconds, at a
/// hundred thousand requests a second); lines are buffered and written by a background thread
/// every 100 ms or once 64 KiB are pending. Warnings and errors are written at once. A process
/// killed with SIGKILL loses at most the last 100 ms of lines.
public final class LogSink: Sendable {
    public static let standardOutput = LogSink(descriptor: 1)

    private let descriptor: Int32
    private let pending = Mutex<[UInt8]>([])
    /// Serialises writes to the descriptor, so batches never interleave.
    private let writing = Mutex<Void>(())
    private let flushThreshold = 64 << 10
    private let flusherStarted = Atomic<Bool>(false)
    private let closesDescriptor: Bool

    /// - Parameter closesDescriptor: close `descriptor` when the sink goes away. A caller that
    ///   closed it itself could not know the flusher thread is done with it: a late batch would
    ///   then go to whatever file reused the number (in tests: another test's database).
    public init(descriptor: Int32, closesDescriptor: Bool = false) {
        self.descriptor = descriptor
        self.closesDescriptor = closesDescriptor
    }

    deinit {
        // The flusher holds the sink weakly: once this runs, nothing writes to the descriptor.
        flush()
        if closesDescriptor { close(descriptor) }
    }

    func write(_ line: [UInt8], urgent: Bool) {
        let size = pending.withLock { buffer in
            buffer.append(contentsOf: line)
            return buffer.count
        }
        if urgent || size >= flushThreshold {
            flush()
        } else {
            startFlusherIfNeeded()
        }
    }

    /// Writes out everything pending, in order.
    public func flush() {
        writing.withLock { _ in
            let batch = pending.withLock { buffer -> [UInt8] in
                let batch = buffer
                buffer.removeAll(keepingCapacity: true)
                return batch
            }
            var offset = 0
            while offset < batch.count {
                let written = batch[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                guard written > 0 else { break }  // nowhere left to log to; drop the rest
                offset += written
            }
        }
    }

    private func startFlusherIfNeeded() {
        guard !flusherStarted.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [weak self] in
            while true {
                usleep(100_000)
                guard let sink = self else { return }
                sink.flush()
            }
        }
        thread.name = "log-flusher"
        thread.start()
    }
}
