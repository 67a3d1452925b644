import Dispatch
import Glibc
import NavPrefsStore
import Synchronization

/// Reader threads, each with its own read-only connection; in WAL mode they read the last
/// committed state without waiting for the writer.
final class SQLiteReaders: Sendable {
    typealias Job = @Sendable (SQLiteConnection) -> Void

    private let queue = JobQueue<Job>()
    private let stopped = DispatchSemaphore(value: 0)
    /// Threads started and not yet joined.
    private let running = Atomic<Int>(0)

    init() {}

    /// Starts `count` reader threads, each opening its connection with `open`; with `lowPriority`,
    /// below the event loop's and the writer's priority (``lowerThreadPriority()``).
    func start(count: Int, lowPriority: Bool, open: @escaping @Sendable () throws -> SQLiteConnection) throws {
        let queue = self.queue
        for index in 0..<max(1, count) {
            do {
                try startWorkerThread(name: lowPriority ? "large-reader-\(index)" : "sqlite-reader-\(index)", exited: stopped, setup: {
                    if lowPriority { lowerThreadPriority() }
                    return try open()
                }) { connection in
                    while let jobs = queue.take(upTo: 1) {
                        for job in jobs { job(connection) }
                    }
                }
                running.add(1, ordering: .relaxed)
            } catch {
                // The failed thread has exited (and signalled); stop the ones already running.
                stopped.wait()
                close()
                throw error
            }
        }
    }

    /// Runs `body` on a reader connection and calls `completion` on that reader's thread.
    func read<Value: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> Value,
                               completion: @escaping StoreCompletion<Value>) {
        let submitted = queue.submit { connection in
            completion(Result { () throws(StoreError) -> Value in
                do { return try Self.attempt(body, on: connection) } catch { throw error.storeError }
            })
        }
        if !submitted { completion(.failure(.closed)) }
    }

    /// Runs a read, again after a short pause when it met a transient lock (see
    /// ``SQLiteError/isTransientForReaders``): busy_timeout covers most waits, but not every
    /// path of a WAL reader, and a read is safe to repeat. Bounded: four attempts, 15 ms at most.
    private static func attempt<Value>(_ body: (SQLiteConnection) throws -> Value, on connection: SQLiteConnection) throws -> Value {
        var pauseMicroseconds: UInt32 = 1_000
        while true {
            do {
                return try body(connection)
            } catch let error as SQLiteError where error.isTransientForReaders && pauseMicroseconds <= 8_000 {
                usleep(pauseMicroseconds)
                pauseMicroseconds *= 2
            }
        }
    }

    /// Lets queued reads finish, then stops the threads (which close their connections).
    func close() {
        queue.close()
        for _ in 0..<running.exchange(0, ordering: .acquiringAndReleasing) { stopped.wait() }
    }
}
