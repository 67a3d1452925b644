import Dispatch
import Foundation
import NavPrefsStore
import Synchronization

/// Where log lines go: a file descriptor, written in batches while the sink runs.
///
/// A request log line per request would cost a `write` system call each (microseconds, at a
/// hundred thousand requests a second); between ``start()`` and ``stop()`` lines are buffered
/// and written by a background thread every 100 ms or once 64 KiB are pending. Warnings and
/// errors are written at once, and so is every line while the sink is not running (a command,
/// a test, start-up). A process killed with SIGKILL loses at most the last 100 ms of lines.
public final class LogSink: Sendable {
    public static let standardOutput = LogSink(descriptor: 1)

    private let descriptor: Int32
    private let pending = Mutex<[UInt8]>([])
    /// Serialises writes to the descriptor, so batches never interleave.
    private let writing = Mutex<Void>(())
    private let flushThreshold = 64 << 10
    /// Whether the flusher thread runs (lines are batched only then).
    private let running = Atomic<Bool>(false)
    /// Signalled to stop the flusher, which otherwise waits on it for one interval.
    private let stopFlusher = DispatchSemaphore(value: 0)
    private let flusherExited = DispatchSemaphore(value: 0)
    private let closesDescriptor: Bool

    /// - Parameter closesDescriptor: close `descriptor` when the sink goes away. A caller that
    ///   closed it itself could not know the flusher thread is done with it: a late batch would
    ///   then go to whatever file reused the number (in tests: another test's database).
    public init(descriptor: Int32, closesDescriptor: Bool = false) {
        self.descriptor = descriptor
        self.closesDescriptor = closesDescriptor
    }

    deinit {
        flush()
        if closesDescriptor { close(descriptor) }
    }

    /// Starts batching: a thread writes pending lines every 100 ms.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let (stop, exited) = (stopFlusher, flusherExited)
        startWorkerThread(name: "log-flusher", exited: exited) { [self] in
            while stop.wait(timeout: .now() + .milliseconds(100)) == .timedOut { flush() }
            flush()
        }
    }

    /// Writes out what is pending and stops the flusher; later lines are written at once.
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return flush() }
        stopFlusher.signal()
        flusherExited.wait()
    }

    func write(_ line: [UInt8], urgent: Bool) {
        let size = pending.withLock { buffer in
            buffer.append(contentsOf: line)
            return buffer.count
        }
        if urgent || size >= flushThreshold || !running.load(ordering: .relaxed) { flush() }
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
                // write(2) of the batch's own bytes, from `offset` to its end: the one call into C
                // that the log's sink wraps.
                let written = unsafe batch[offset...].withUnsafeBytes { unsafe Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue  // a signal arrived mid-write (SIGTERM at shutdown): the rest still goes out
                } else {
                    break  // nowhere left to log to; drop the rest
                }
            }
        }
    }
}
