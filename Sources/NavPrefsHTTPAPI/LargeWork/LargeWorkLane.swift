import NavPrefsStore
import Synchronization

/// Threads of their own for the requests whose cost grows with their size, so that the event
/// loop does bounded work per request: a body larger than the loop takes
/// (``NavPrefsAPI/Options/loopBodyBytes``) is decoded, checked and handed to the store here,
/// while the loop goes on serving everyone else (60,000 keys in one body held it for 27 s when
/// the loop decoded them, measured; reads too large for the loop go to the store's readers, see
/// ``APIResult/reading(_:from:version:_:)``).
///
/// Nothing is special about a job: it answers through its responder, as the loop would have.
/// Its two threads run at the process' priority (a job may start or resume a task; see
/// ``lowerThreadPriority()``): the loop, asleep most of the time, still gets a core as soon as
/// it wakes (`/healthz` p99 27 ms beside four clients sending 60,000 keys each, debug build). Started and stopped by the service (``start()``, ``stop()``); before
/// it starts or after it stops, jobs run on the caller's thread.
final class LargeWorkLane: Sendable {
    private let workers: RestartableWorkers<@Sendable () -> Void>
    /// Requests whose bodies were handled here so far (`navprefs_large_bodies_total`).
    var largeBodies: Int { bodies.load(ordering: .relaxed) }
    private let bodies = Atomic<Int>(0)

    init(threads: Int) { workers = RestartableWorkers(name: "large-work", threads: threads) }

    /// Its threads run at the process' priority: a job runs a route, which may start a task (a
    /// route that awaits) or resume one (an answer in memory), and a thread started from a
    /// thread of lower priority would inherit it (``lowerThreadPriority()``).
    func start() { workers.start { job in job() } }

    /// Runs the handling of a request with a large body on the lane (counted).
    func handleBody(_ job: @escaping @Sendable () -> Void) {
        bodies.add(1, ordering: .relaxed)
        submit(job)
    }

    /// Runs `job` on a thread of the lane (on the caller's, when the lane is not running).
    func submit(_ job: @escaping @Sendable () -> Void) {
        guard workers.submit(job) else { return job() }
    }

    /// Lets queued jobs finish, then stops the threads.
    func stop() { workers.stop() }
}
