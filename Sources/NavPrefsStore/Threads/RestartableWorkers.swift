import Dispatch
import Synchronization

/// Threads that take jobs from one ``JobQueue`` while their owner runs them, for owners that
/// hand jobs over from any thread and must not lose one when they are not running: ``submit(_:)``
/// answers `false` before ``start(_:)`` and after ``stop()``, and the owner runs the job some
/// other way (the caller's thread, the shared task pool). The large-work lane and the executor of
/// requests' tasks are two.
package final class RestartableWorkers<Job: Sendable>: Sendable {
    private let name: String
    private let threads: Int
    private let queue = Mutex<JobQueue<Job>?>(nil)
    private let exited = DispatchSemaphore(value: 0)

    /// - Parameter name: the threads' names are `name-0`, `name-1`… (15 bytes at most in all).
    package init(name: String, threads: Int) {
        self.name = name
        self.threads = max(1, threads)
    }

    /// Starts the threads, each running `run` on the jobs it takes, one at a time.
    package func start(_ run: @escaping @Sendable (Job) -> Void) {
        let queue = JobQueue<Job>()
        let started = self.queue.withLock { current in
            guard current == nil else { return false }
            current = queue
            return true
        }
        guard started else { return }
        for index in 0..<threads {
            startWorkerThread(name: "\(name)-\(index)", exited: exited) {
                while let jobs = queue.take(upTo: 1) {
                    for job in jobs { run(job) }
                }
            }
        }
    }

    /// Queues `job` for a thread; `false` when the threads are not running.
    package func submit(_ job: Job) -> Bool {
        guard let queue = queue.withLock({ $0 }) else { return false }
        return queue.submit(job)
    }

    /// Lets the queued jobs run, then stops the threads.
    package func stop() {
        guard let queue = queue.withLock({ current in defer { current = nil }; return current }) else { return }
        queue.close()
        for _ in 0..<threads { exited.wait() }
    }
}
