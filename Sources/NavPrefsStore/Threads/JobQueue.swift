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
    ///
    /// Signals after unlocking: a worker woken while the lock is still held blocks on it at once,
    /// and on one core the submitter then waits for that worker and the worker for it again
    /// (five futex calls and two extra context switches per job: the WAL syncer's queue made
    /// about 0.7 futex calls per FULL write at c = 16, `perf stat -e syscalls:sys_enter_futex`).
    /// No wake-up is lost: a worker checks the queue and starts waiting with the lock held, so it
    /// either sees the job or is waiting when the signal comes.
    package func submit(_ job: Job) -> Bool {
        condition.lock()
        guard !closed else {
            condition.unlock()
            return false
        }
        jobs.append(job)
        condition.unlock()
        condition.signal()
        return true
    }

    /// Adds `batch` in order, for a queue whose one worker takes everything queued at once
    /// (``takeAll()``): signals only when the queue was empty, since a queue that holds jobs has
    /// its wake-up on the way already (the event feed's queues: a wake-up per commit, not per event).
    /// `false` once the queue is closed.
    package func submit(contentsOf batch: some Collection<Job>) -> Bool {
        condition.lock()
        guard !closed else {
            condition.unlock()
            return false
        }
        let wasEmpty = jobs.isEmpty
        jobs.append(contentsOf: batch)
        condition.unlock()
        if wasEmpty { condition.signal() }
        return true
    }

    /// Waits for jobs and takes all of them, in order; `nil` once closed and empty.
    package func takeAll() -> [Job]? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !closed { condition.wait() }
        guard !jobs.isEmpty else { return nil }
        defer { jobs.removeAll(keepingCapacity: true) }
        return jobs
    }

    /// Takes every job queued now, without waiting (empty when none is).
    package func takeAllQueued() -> [Job] {
        condition.lock()
        defer { condition.unlock() }
        defer { jobs.removeAll(keepingCapacity: true) }
        return jobs
    }

    /// Whether ``close()`` or ``closeDiscarding()`` was called.
    package var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
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
        condition.unlock()
        condition.broadcast()
    }

    /// Refuses new jobs and drops those queued: a worker's next `take` returns `nil` at once.
    package func closeDiscarding() {
        condition.lock()
        closed = true
        jobs = []
        condition.unlock()
        condition.broadcast()
    }
}
