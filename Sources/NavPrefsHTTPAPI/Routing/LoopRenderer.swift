import Glibc
import Synchronization

/// Runs the end of a store call's answer (rendering the store's value, the response steps, the
/// log line, the hand-over to the transport) on the event-loop thread, whichever thread the
/// store finished on: a PostgreSQL pool thread, SQLite's writer or syncer, a reader.
///
/// Why the loop: the response steps and the request metrics then run on one thread, and a
/// store's thread goes back to its next transaction at once instead of rendering while other
/// writes wait. A store thread hands over a job and wakes the loop once (not once per job: the
/// wake is only needed when the queue was empty), and the loop runs the queue at the start of
/// its next turn (``NavPrefsAPI/turnBegan()``). What grows with a profile's size (a large
/// read's answer, a collection's write) is rendered before it gets here, where it was made,
/// so the loop's work per answer stays bounded.
///
/// Without a running event loop (the in-memory transport, or after the loop stopped) a job runs
/// where it is handed over.
final class LoopRenderer: Sendable {
    typealias Job = @Sendable () -> Void

    private struct State {
        /// The loop's wake-up, while it runs.
        var wake: (@Sendable () -> Void)?
        var queued: [Job] = []
    }

    private let state = Mutex(State())
    /// The event-loop thread (`pthread_self`), 0 while no loop runs: a job handed over on it
    /// runs at once.
    private let loopThread = Atomic<UInt>(0)
    /// Answers rendered on another thread before they were handed over (large reads, large
    /// writes' answers), for tests that show where work ran.
    let renderedElsewhere = Atomic<Int>(0)

    /// The event loop started, on its thread.
    func loopStarted(wake: @escaping @Sendable () -> Void) {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        state.withLock { $0.wake = wake }
    }

    /// The event loop stopped, on its thread: what is queued runs now, and later jobs where
    /// they are handed over.
    func loopStopped() {
        loopThread.store(0, ordering: .releasing)
        let left = state.withLock { state in
            state.wake = nil
            defer { state.queued.removeAll() }
            return state.queued
        }
        for job in left { job() }
    }

    /// Runs `job` on the event loop: at once when called there or when no loop runs, else at
    /// the loop's next turn.
    func submit(_ job: @escaping Job) {
        if isLoopThread { return job() }
        let wake: (@Sendable () -> Void)?? = state.withLock { state in
            guard let wake = state.wake else { return .none }
            state.queued.append(job)
            return .some(state.queued.count == 1 ? wake : nil)
        }
        switch wake {
        case .none: job()
        case .some(let wake): wake?()
        }
    }

    /// Whether the caller is on the running event loop's thread.
    var isLoopThread: Bool { loopThread.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Runs what other threads queued since the last turn (event-loop thread).
    func runQueued() {
        let jobs = state.withLock { state in
            guard !state.queued.isEmpty else { return [Job]() }
            defer { state.queued.removeAll(keepingCapacity: true) }
            return state.queued
        }
        for job in jobs { job() }
    }
}
