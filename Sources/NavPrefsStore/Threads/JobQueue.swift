package import Foundation

/// A FIFO of jobs for worker threads, which block on it while it is empty.
///
/// Safety (`@unchecked Sendable`): `jobs` and `closed` are only touched with `condition` locked.
package final class JobQueue<Job>: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var closed = false

    package init() {}

    /// Adds a job; `false` once the queue is closed.
    package func submit(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Waits for jobs and takes up to `limit` of them; `nil` once closed and empty.
    package func take(upTo limit: Int) -> ArraySlice<Job>? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !closed { condition.wait() }
        guard !jobs.isEmpty else { return nil }
        let count = min(limit, jobs.count)
        let taken = jobs[..<count]
        jobs.removeFirst(count)
        return taken
    }

    /// Waits for a job and takes it, with the jobs right behind it while `joins` accepts both it
    /// and them, up to `limit` in all (a batch); `nil` once closed and empty.
    package func take(upTo limit: Int, joining joins: (Job) -> Bool) -> ArraySlice<Job>? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !closed { condition.wait() }
        guard let first = jobs.first else { return nil }
        var count = 1
        if joins(first) {
            while count < min(limit, jobs.count), joins(jobs[count]) { count += 1 }
        }
        let taken = jobs[..<count]
        jobs.removeFirst(count)
        return taken
    }

    /// Like ``take(upTo:)``, but returns an empty slice if no job arrives before `deadline`.
    package func take(upTo limit: Int, until deadline: Date) -> ArraySlice<Job>? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !closed {
            if !condition.wait(until: deadline) { return [] }
        }
        guard !jobs.isEmpty else { return nil }
        let count = min(limit, jobs.count)
        let taken = jobs[..<count]
        jobs.removeFirst(count)
        return taken
    }

    /// Takes up to `limit` jobs queued now, without waiting (an empty slice when none is); `nil`
    /// once closed and empty.
    package func takeQueued(upTo limit: Int) -> ArraySlice<Job>? {
        condition.lock()
        defer { condition.unlock() }
        guard !jobs.isEmpty else { return closed ? nil : [] }
        let count = min(limit, jobs.count)
        let taken = jobs[..<count]
        jobs.removeFirst(count)
        return taken
    }

    /// Refuses new jobs; workers finish what is queued, then `take` returns `nil`.
    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Starts a named thread that first runs `setup` (reporting its error back to the caller, who
/// waits for it), then `run`, and signals `exited` once the state `setup` made is released
/// (for SQLite: once the connection is closed).
package func startWorkerThread<State>(
    name: String,
    exited: DispatchSemaphore,
    setup: @escaping @Sendable () throws -> State,
    run: @escaping @Sendable (State) -> Void
) throws {
    let ready = DispatchSemaphore(value: 0)
    let failure = LockedBox<(any Error)?>(nil)
    let thread = Thread {
        defer { exited.signal() }
        let state: State
        do {
            state = try setup()
        } catch {
            failure.value = error
            ready.signal()
            return
        }
        ready.signal()
        run(state)
    }
    thread.name = name
    thread.start()
    ready.wait()
    if let error = failure.value { throw error }
}

/// A value handed between two threads that synchronise otherwise (a semaphore above).
package final class LockedBox<Value>: @unchecked Sendable {
    // Safety: all access goes through `lock`.
    private let lock = NSLock()
    private var stored: Value
    package init(_ value: Value) { stored = value }
    package var value: Value {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}

/// Runs blocking `body` (joining worker threads, waiting for a queue to drain) on a thread of its
/// own, so that the caller's cooperative-pool thread, one of only as many as there are cores,
/// stays free for other tasks meanwhile.
package func waitOffThePool(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let thread = Thread {
            body()
            continuation.resume()
        }
        thread.name = "store-close"
        thread.start()
    }
}

/// Runs blocking `body` (opening a database, migrating it) on a thread of its own and returns
/// its value, keeping the caller's cooperative-pool thread free meanwhile.
package func runOffThePool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    let result = LockedBox<Result<Value, any Error>?>(nil)
    await waitOffThePool { result.value = Result { try body() } }
    guard let outcome = result.value else { throw StoreError.internal(reason: "a blocking call ended without a result") }
    return try outcome.get()
}

/// Gives the calling thread a lower scheduling priority (nice 5) than the process' others, for
/// threads whose work may take long (large reads): the event loop and the store's writer then
/// get a core as soon as they wake. Linux keeps a nice value per thread, and `setpriority` with
/// 0 sets the calling thread's.
///
/// A thread created by such a thread inherits its nice value, and libdispatch creates the
/// threads of Swift's task pool from whichever thread enqueues a task when the pool grows: a
/// thread lowered here must start no thread or task and resume no continuation (an awaited
/// read's, the in-memory transport's answer), or the pool may keep a thread at nice 5 for good.
package func lowerThreadPriority() {
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)
}
