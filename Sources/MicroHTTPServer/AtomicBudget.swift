import Synchronization

extension Atomic where Value == Int {
    /// Adds `count` if the sum stays within `limit`, atomically against other threads doing the
    /// same; answers whether it did. The budgets' one way of taking bytes (``StreamBudget``,
    /// ``AnswerBudget``).
    func add(_ count: Int, within limit: Int) -> Bool {
        var current = load(ordering: .relaxed)
        while true {
            guard current <= limit - count else { return false }
            let (exchanged, original) = compareExchange(expected: current, desired: current + count, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }
}
