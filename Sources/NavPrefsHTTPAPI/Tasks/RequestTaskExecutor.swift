import NavPrefsStore

/// Where the tasks that requests start run: threads of the service's own, not the task pool
/// the whole process shares (its threads are as many as the cores).
///
/// A request starts a task only to await something: a route that awaits the store
/// (``APIResult/deferred(_:)``: an event stream's opening, `/metrics`, a page of the log, a
/// history), a token the cache does not know, the readiness probe's ping. On the shared pool
/// such a task waits for a thread behind whatever else the process runs there, and code that
/// blocks a pool thread stops it outright: in the test process, where 470 tests share two pool
/// threads with the services they start, an event stream's opening waited up to 11 s for a thread
/// under load (a 40-s test failure, twice in CI), and a program that embeds the service, or a
/// library it uses, could do the same in production. Here the wait is only for the service's
/// own tasks, which block nothing: they await the store's threads and go on.
///
/// Started and stopped by the service (``start()``, ``stop()``). A task's step that comes while
/// it is not running (before the start, after the stop, such as a ping answered after its
/// deadline) runs on the shared pool instead: nothing is dropped.
final class RequestTaskExecutor: TaskExecutor, Sendable {
    private let workers: RestartableWorkers<UnownedJob>

    init(threads: Int) { workers = RestartableWorkers(name: "request-tasks", threads: threads) }

    func start() {
        // Safety: each job was queued once, by enqueue, and is taken once by one thread.
        workers.start { [self] job in unsafe job.runSynchronously(on: asUnownedTaskExecutor()) }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        guard workers.submit(unowned) else { return globalConcurrentExecutor.enqueue(ExecutorJob(unowned)) }
    }

    /// Runs what is queued, then stops the threads; later steps run on the shared pool.
    func stop() { workers.stop() }
}
