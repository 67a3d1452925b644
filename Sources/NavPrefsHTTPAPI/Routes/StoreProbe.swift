import NavPrefsStore
import Synchronization

/// Whether the store answers within a deadline, for `/readyz`.
///
/// Why a deadline of its own: while PostgreSQL fails over, a ping can wait behind calls that
/// hang on a vanished server until TCP gives up (seconds); a readiness probe must answer within
/// the orchestrator's timeout, so it reports what it knows by then. The ping is not cancelled
/// (the store's calls cannot be); it finishes in the background and its answer is dropped.
enum StoreProbe {
    enum Outcome: Equatable, Sendable {
        case answered
        case failed
        case timedOut
        /// The store answered that its data is damaged.
        case damaged(String)
    }

    /// - Parameter tasks: where the ping and the deadline run: unstructured tasks do not take
    ///   their starter's executor (``RequestTaskExecutor``), so they are told.
    static func ping(_ store: any Store, within deadline: Duration, on tasks: any TaskExecutor) async -> Outcome {
        let first = FirstAnswer()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            first.set(continuation)
            Task(executorPreference: tasks) {
                do throws(StoreError) {
                    try await store.ping()
                    first.answer(.answered)
                } catch .corrupted(let reason) {
                    first.answer(.damaged(reason))
                } catch {
                    first.answer(.failed)
                }
            }
            Task(executorPreference: tasks) {
                try? await Task.sleep(for: deadline)
                first.answer(.timedOut)
            }
        }
    }
}

/// Resumes a continuation with whichever answer comes first; later ones are dropped.
private final class FirstAnswer: Sendable {
    private let continuation = Mutex<CheckedContinuation<StoreProbe.Outcome, Never>?>(nil)

    func set(_ waiting: CheckedContinuation<StoreProbe.Outcome, Never>) {
        continuation.withLock { $0 = waiting }
    }

    func answer(_ outcome: StoreProbe.Outcome) {
        continuation.withLock { waiting in
            waiting?.resume(returning: outcome)
            waiting = nil
        }
    }
}
