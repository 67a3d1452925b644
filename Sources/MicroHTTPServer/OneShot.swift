import Synchronization

/// A value handed once from whichever thread produces it to the event loop that consumes it.
///
/// The consumer first runs the producer's code (the handler) and then ``takeOrSuspend(suspend:wake:)``s:
/// a value produced meanwhile is taken at once; otherwise the consumer suspends its connection
/// and leaves `wake` for the producer. Both happen under one lock, so a wake-up (libmicrohttpd's
/// resume) can never come before the suspend it undoes, and a value is delivered exactly once.
package final class OneShot<Value: Sendable>: Sendable {
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

    package init() {}

    /// Hands over `value`; `false` if one was handed over already or nobody waits any more.
    ///
    /// The wake-up (libmicrohttpd's resume and an eventfd write, a system call) runs after the
    /// lock is released, so the event loop never spins on this lock behind it. That is safe:
    /// `waiting` means the consumer suspended already, and nothing takes the value before the
    /// resume calls it back.
    package func fulfil(_ value: Value) -> Bool {
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
    package func takeOrSuspend(suspend: () -> Void, wake: @escaping @Sendable () -> Void) -> Value? {
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
    package func take() -> Value? {
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
    package func drop() -> Bool {
        state.withLock { state in
            defer { state = .dropped }
            if case .waiting = state { return true }
            return false
        }
    }
}
