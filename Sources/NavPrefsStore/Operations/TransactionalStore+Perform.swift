/// Running a write built as a value (``StoreWrite``): every write of ``Store`` comes through here.
extension TransactionalStore {
    public func perform<Value: Sendable>(_ write: StoreWrite<Value>, completion: @escaping StoreCompletion<Value>) {
        let limits = self.limits
        self.write(changing: write.profile, weight: write.weight, bounded: write.runsBounded(under: limits), { transaction in
            let before = write.growsStorage ? try QuotaSteps.before(write.profile, limits: limits, in: transaction) : nil
            let watched = EventLogSteps.Watch(transaction, limits: limits)
            let outcome = try write.steps(watched, limits)
            try QuotaSteps.check(write.profile, before: before, limits: limits, in: transaction)
            try watched.keepBound(of: write.profile, limits: limits)
            return outcome
        }, completion: completion)
    }
}
