import Dispatch
import Foundation
import Synchronization

/// The request to shut down, from a signal or from code, and everyone waiting for it.
///
/// ``installHandlers(for:)`` runs first thing at start-up, before anything is opened or bound:
/// a SIGTERM at any moment from then on is a request to stop, never the default action that
/// ends the process mid-migration or with the port half set up.
public final class ShutdownSignal: Sendable {
    private struct State {
        var reason: String?
        var waiters: [CheckedContinuation<Void, Never>] = []
        var actions: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Why the shutdown was requested (`SIGTERM`, ...), once it was.
    public var reason: String? { state.withLock { $0.reason } }
    public var isRequested: Bool { reason != nil }

    /// Requests the shutdown (the first reason given stays) and wakes every waiter.
    public func request(reason: String) {
        let (waiters, actions) = state.withLock { state -> ([CheckedContinuation<Void, Never>], [@Sendable () -> Void]) in
            guard state.reason == nil else { return ([], []) }
            state.reason = reason
            defer { state.waiters = []; state.actions = [] }
            return (state.waiters, state.actions)
        }
        for action in actions { action() }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs `action` when the shutdown is requested (at once if it was), on the requesting
    /// thread: for work that blocks a thread rather than awaits, such as a connect to a
    /// database that does not answer, which must be given up at once.
    public func whenRequested(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            guard state.reason == nil else { return true }
            state.actions.append(action)
            return false
        }
        if now { action() }
    }

    /// Returns once the shutdown is requested (at once if it was).
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state in
                guard state.reason == nil else { return false }
                state.waiters.append(continuation)
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    /// Turns SIGTERM and SIGINT (or `signals`) into shutdown requests (through Dispatch: a signal handler proper can do
    /// almost nothing safely). A second signal while the shutdown is under way exits at once with
    /// status 1, for an operator who does not want to wait.
    public func installHandlers() { installHandlers(for: [SIGTERM, SIGINT]) }

    public func installHandlers(for signals: [Int32]) {
        let queue = DispatchQueue(label: "signals")
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)  // otherwise the default action ends the process first
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in
                guard !isRequested else { exit(1) }
                request(reason: number == SIGTERM ? "SIGTERM" : number == SIGINT ? "SIGINT" : "signal \(number)")
            }
            source.resume()
            sources.append(source)
        }
        SignalSources.keep(sources)
    }
}

/// Keeps signal sources alive for the life of the process (a released source stops listening).
///
/// Safety (`@unchecked Sendable`): the array is only appended to, under `lock`, and never read.
private final class SignalSources: @unchecked Sendable {
    private static let shared = SignalSources()
    private let lock = NSLock()
    private var retained: [any DispatchSourceSignal] = []

    static func keep(_ sources: [any DispatchSourceSignal]) {
        shared.lock.lock()
        shared.retained.append(contentsOf: sources)
        shared.lock.unlock()
    }
}
