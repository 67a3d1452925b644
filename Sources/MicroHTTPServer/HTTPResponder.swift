import Glibc
import Synchronization

/// The one-shot way a handler answers a request (``HTTPHandler/handle(_:responder:)``).
///
/// Call ``respond(_:)`` exactly once, from any thread: on the event loop while `handle` runs
/// (the answer then goes out as soon as `handle` returns, the connection never suspended), or
/// later from the thread that did the work (a store's writer, say), which hands the bytes to the
/// event loop and wakes it. That is the whole path of deferred work: no task, no queue of the
/// server's own. Calls after the first are ignored, and so is a call after the client left.
public struct HTTPResponder: Sendable {
    let shot: OneShot<HTTPResponse>
    /// When the request line arrived, for the latency an application logs.
    public let receivedAt: ContinuousClock.Instant
    let tally: AnswerTally?
    /// Where a large body is moved and counted, on this thread (``AnswerBudget``).
    let answers: AnswerBudget?

    init(shot: OneShot<HTTPResponse>, receivedAt: ContinuousClock.Instant, tally: AnswerTally?, answers: AnswerBudget? = nil) {
        self.shot = shot
        self.receivedAt = receivedAt
        self.tally = tally
        self.answers = answers
    }

    /// Answers the request with `response`; `false` if it was answered already (or is gone).
    @discardableResult
    public func respond(_ response: consuming HTTPResponse) -> Bool {
        var response = response
        answers?.prepare(&response)
        // Counted before the answer can reach the client, so a client that saw it sees the count.
        let offLoop = tally?.answeredOffTheLoop() ?? false
        let accepted = shot.fulfil(response)
        if !accepted, offLoop { tally?.offLoop.subtract(1, ordering: .relaxed) }
        return accepted
    }
}

/// Which thread made the answers: the event loop's (while the handler ran), or another. What
/// ``HTTPServer/answersMadeOffTheLoop`` reports, so tests and operators can see which requests
/// crossed a thread.
final class AnswerTally: Sendable {
    /// `pthread_self()` of the event loop, once it runs.
    let loopThread = Atomic<UInt>(0)
    let offLoop = Atomic<Int>(0)

    /// Whether the calling thread is the event loop's.
    var onLoopThread: Bool { UInt(pthread_self()) == loopThread.load(ordering: .relaxed) }

    /// Counts an answer about to be made on this thread; whether it is another than the loop's.
    func answeredOffTheLoop() -> Bool {
        guard UInt(pthread_self()) != loopThread.load(ordering: .relaxed) else { return false }
        offLoop.add(1, ordering: .relaxed)
        return true
    }
}

/// The one-shot way an admission decided later (``HTTPAdmission/later(_:)``) hands its
/// decision back, from any thread, exactly once.
public struct HTTPAdmissionResponder: Sendable {
    let shot: OneShot<HTTPAdmission>

    /// Decides; `false` if a decision was made already (or the request is gone).
    @discardableResult
    public func decide(_ admission: HTTPAdmission) -> Bool { shot.fulfil(admission) }
}

/// A value handed once from whichever thread produces it to the event loop that consumes it.
///
/// The consumer first runs the producer's code (the handler) and then ``settle(suspend:wake:)``s:
/// a value produced meanwhile is taken at once; otherwise the consumer suspends its connection
/// and leaves `wake` for the producer. Both happen under one lock, so a wake-up (libmicrohttpd's
/// resume) can never come before the suspend it undoes, and a value is delivered exactly once.
final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        /// The consumer is running the producer's code right now.
        case handing
        /// The consumer suspended; the producer calls `wake` once it has the value.
        case waiting(wake: @Sendable () -> Void)
        case ready(Value)
        case taken
        /// The consumer went away (the client left, the server stopped): values are dropped.
        case dropped
    }

    private let state = Mutex(State.handing)

    init() {}

    /// Hands over `value`; `false` if one was handed over already or nobody waits any more.
    ///
    /// The wake-up (libmicrohttpd's resume and an eventfd write, a system call) runs after the
    /// lock is released, so the event loop never spins on this lock behind it. That is safe:
    /// `waiting` means the consumer suspended already, and nothing takes the value before the
    /// resume calls it back.
    func fulfil(_ value: Value) -> Bool {
        let outcome: (accepted: Bool, wake: (@Sendable () -> Void)?) = state.withLock { state in
            switch state {
            case .handing:
                state = .ready(value)
                return (true, nil)
            case .waiting(let wake):
                state = .ready(value)
                return (true, wake)
            case .ready, .taken, .dropped:
                return (false, nil)
            }
        }
        outcome.wake?()
        return outcome.accepted
    }

    /// After the producer's code returned: the value if it came already, else `nil` after
    /// `suspend` ran (under the lock) and `wake` was left for the producer.
    func settle(suspend: () -> Void, wake: @escaping @Sendable () -> Void) -> Value? {
        state.withLock { state in
            switch state {
            case .ready(let value):
                state = .taken
                return value
            case .handing:
                suspend()
                state = .waiting(wake: wake)
                return nil
            case .waiting, .taken, .dropped:
                return nil
            }
        }
    }

    /// After a wake-up: the value, once.
    func take() -> Value? {
        take(if: { _ in true })
    }

    /// The value, once, if it came and `accepts` it; otherwise it stays for ``take()``.
    func take(if accepts: (Value) -> Bool) -> Value? {
        state.withLock { state in
            guard case .ready(let value) = state, accepts(value) else { return nil }
            state = .taken
            return value
        }
    }

    /// Whether the consumer still waits for a value (it was not handed over yet).
    var isWaiting: Bool {
        state.withLock { if case .waiting = $0 { true } else { false } }
    }

    /// Nobody will take a value any more; answers whether one was still awaited.
    @discardableResult
    func drop() -> Bool {
        state.withLock { state in
            defer { state = .dropped }
            if case .waiting = state { return true }
            return false
        }
    }
}
