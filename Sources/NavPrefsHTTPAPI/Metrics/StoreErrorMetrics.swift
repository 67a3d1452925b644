import NavPrefsStore
import Synchronization

/// Store failures by kind (`unavailable`, `corrupted`, `internal`, `closed`): what an operator
/// alerts on, counted where they are answered.
final class StoreErrorMetrics: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func record(_ kind: String) { counts.withLock { $0[kind, default: 0] += 1 } }
    func snapshot() -> [String: Int] { counts.withLock { $0 } }
}
