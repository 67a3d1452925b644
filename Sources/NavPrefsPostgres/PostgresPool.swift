import Dispatch
import Foundation
import NavPrefsStore
import Synchronization

/// A fixed number of threads, each owning one PostgreSQL connection, that run the store's jobs.
///
/// libpq calls block until the server answers, so they run here and never on Swift's
/// cooperative pool: an `await` on the pool suspends the task, and no HTTP or concurrency
/// thread waits for PostgreSQL. A worker opens its connection when it first needs it, and after
/// losing it opens a new one for the next job, backing off while the server stays unreachable;
/// jobs meanwhile fail at once with ``StoreError/unavailable(reason:)`` (503), so a dead
/// database costs callers no waiting and the service resumes by itself when it returns.
final class PostgresPool: Sendable {
    /// Whether a job may run again on a new connection after the first one was lost mid-job.
    enum Retry {
        /// Reads: running them twice does no harm.
        case always
        /// Writes: only if nothing reached the server (see ``PostgresError/safeToRetry``).
        case ifSafe
    }

    typealias Job = @Sendable (PostgresWorker) -> Void

    /// What the queue holds: a job for one worker, or a write that may share its transaction
    /// with the writes queued right behind it (group commit, see ``PostgresBatch``).
    enum Queued: Sendable {
        case job(Job)
        case write(any BatchableWrite)

        var isWrite: Bool { if case .write = self { true } else { false } }
    }

    /// Writes one transaction takes at most.
    static let maxBatch = 32

    private let queue = JobQueue<Queued>()
    private let stopped = DispatchSemaphore(value: 0)
    /// Threads started and not yet joined.
    private let running = Atomic<Int>(0)

    init() {}

    /// Starts `size` worker threads; each connects when it first needs to.
    func start(size: Int, connect: @escaping @Sendable () throws(PostgresError) -> PostgresConnection) throws {
        let queue = self.queue
        for index in 0..<max(1, size) {
            try startWorkerThread(name: "pg-pool-\(index)", exited: stopped, setup: { PostgresWorker(connect: connect) }) { worker in
                // A worker that finds writes queued takes those in a row: they commit together.
                while let taken = queue.take(upTo: Self.maxBatch, joining: \.isWrite) {
                    if case .job(let job)? = taken.first {
                        job(worker)
                    } else {
                        PostgresBatch.commit(taken.compactMap { if case .write(let write) = $0 { write } else { nil } }, on: worker)
                    }
                }
                worker.disconnect()
            }
            running.add(1, ordering: .relaxed)
        }
    }

    /// Runs `body` on a worker's connection and returns its value; storage failures become
    /// ``StoreError``s.
    func run<Value: Sendable>(
        retry: Retry, _ body: @escaping @Sendable (PostgresConnection) throws -> Value,
        completion: @escaping StoreCompletion<Value>
    ) {
        let submitted = queue.submit(.job { worker in
            completion(Result { () throws(StoreError) -> Value in try worker.perform(retry: retry, body) })
        })
        if !submitted { completion(.failure(.closed)) }
    }

    func run<Value: Sendable>(
        retry: Retry, _ body: @escaping @Sendable (PostgresConnection) throws -> Value
    ) async throws(StoreError) -> Value {
        try await awaitCompletion { run(retry: retry, body, completion: $0) }
    }

    /// Queues a write that may share a transaction; `false` once the pool is closed.
    func submit(_ write: any BatchableWrite) -> Bool {
        queue.submit(.write(write))
    }

    /// Queues `job` without waiting for it (maintenance); `false` once the pool is closed.
    @discardableResult
    func submit(_ job: @escaping @Sendable (PostgresWorker) -> Void) -> Bool {
        queue.submit(.job(job))
    }

    /// Runs the jobs already queued, then closes every connection and stops the threads.
    func close() {
        queue.close()
        for _ in 0..<running.exchange(0, ordering: .acquiringAndReleasing) { stopped.wait() }
    }
}

/// One pool thread's connection: opened on demand, replaced after a loss, with backoff while
/// the server cannot be reached. Owned by its thread.
final class PostgresWorker {
    private let connect: @Sendable () throws(PostgresError) -> PostgresConnection
    private var connection: PostgresConnection?
    private var backoff = Backoff()

    init(connect: @escaping @Sendable () throws(PostgresError) -> PostgresConnection) {
        self.connect = connect
    }

    /// Runs `body`; after a lost connection, once more on a new one if `retry` allows it.
    /// Transactions that conflict (deadlock, serialization failure) run again too.
    func perform<Value>(retry: PostgresPool.Retry, _ body: (PostgresConnection) throws -> Value) throws(StoreError) -> Value {
        var attempts = 0
        while true {
            attempts += 1
            let connection = try connected()
            do {
                return try body(connection)
            } catch let error as PostgresError {
                if error.isConnectionLost || !connection.isAlive { disconnect() }
                let again = error.isConnectionLost ? (retry == .always || error.safeToRetry) : error.isTransient
                if again && attempts < 3 { continue }
                throw error.storeError
            } catch let error as StoreError {
                if !connection.isAlive { disconnect() }
                throw error
            } catch {
                throw .internal(reason: String(describing: error))
            }
        }
    }

    /// The open connection, or a new one unless the last attempt failed too recently.
    private func connected() throws(StoreError) -> PostgresConnection {
        if let connection, connection.isAlive { return connection }
        connection = nil
        guard backoff.mayTry() else {
            throw .unavailable(reason: "PostgreSQL is unreachable; retrying in the background (\(backoff.lastError))")
        }
        do {
            let opened = try connect()
            backoff.succeeded()
            connection = opened
            return opened
        } catch {
            backoff.failed(error.message)
            throw error.storeError
        }
    }

    func disconnect() { connection = nil }
}

/// When to try connecting again after failures: right away after a loss, then after 50 ms,
/// doubling up to 2 s, so a restarted server is found within about 2 s without hammering it.
struct Backoff {
    private var delay: Duration = .zero
    private var notBefore = ContinuousClock.now
    private(set) var lastError = ""

    func mayTry() -> Bool { ContinuousClock.now >= notBefore }

    mutating func failed(_ message: String) {
        delay = delay == .zero ? .milliseconds(50) : min(delay * 2, .seconds(2))
        notBefore = ContinuousClock.now + delay
        lastError = message
    }

    mutating func succeeded() {
        delay = .zero
        notBefore = ContinuousClock.now
    }

    /// How long to wait before the next attempt.
    var remaining: Duration { max(.zero, notBefore - ContinuousClock.now) }
}
