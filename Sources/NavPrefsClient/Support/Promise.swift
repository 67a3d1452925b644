import Foundation

/// A result that arrives once, awaited by any number of tasks: a queued write's answer, the first
/// state of a profile. A waiting task that is cancelled stops waiting (``NavPrefsError/cancelled``);
/// the result still arrives for the others.
final class Promise<Value: Sendable>: Sendable {
    private let state = Locked<(result: Result<Value, NavPrefsError>?, waiters: [UUID: CheckedContinuation<Result<Value, NavPrefsError>, Never>])>(
        (nil, [:]))

    init(_ result: Result<Value, NavPrefsError>? = nil) {
        state.withLock { $0.result = result }
    }

    /// Sets the result (the first one counts) and wakes every waiter.
    func fulfill(_ result: Result<Value, NavPrefsError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Result<Value, NavPrefsError>, Never>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    var result: Result<Value, NavPrefsError>? { state.withLock { $0.result } }

    /// The result, once there is one.
    func value() async throws(NavPrefsError) -> Value {
        let id = UUID()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, NavPrefsError>, Never>) in
                let ready = state.withLock { state -> Result<Value, NavPrefsError>? in
                    if let result = state.result { return result }
                    if Task.isCancelled { return .failure(.cancelled) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: .failure(.cancelled))
        }
        return try result.get()
    }
}

/// Wakes a loop that sleeps between attempts (the outbox's drain, the stream's reconnect) as soon
/// as there is a reason to try again: a new write, the server answering again.
final class Wakeup: Sendable {
    private let state = Locked<(pending: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func wake() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            if state.waiter == nil { state.pending = true }
            return state.waiter
        }?.resume()
    }

    /// Sleeps for `duration`, or until woken (a wake while awake is kept for the next sleep).
    func sleep(for duration: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask { await self.waitForWake() }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForWake() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
    }
}

/// Lets one task at a time through, in arrival order, across suspension points: a queued write's
/// request and its answer on one side, the event stream's events on the other, so that an event
/// announcing this device's own write never lands while the write still counts as queued
/// (a counter step would show twice for a moment).
final class AsyncGate: Sendable {
    private let state = Locked<(busy: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func run<Result>(_ body: () async -> Result) async -> Result {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        defer {
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard !state.waiters.isEmpty else {
                    state.busy = false
                    return nil
                }
                return state.waiters.removeFirst()
            }?.resume()
        }
        return await body()
    }
}
