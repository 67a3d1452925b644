/// Running a write built as a value (``StoreWrite``): every write of ``Store`` comes through here.
extension TransactionalStore {
    public func perform<Value: Sendable>(_ write: StoreWrite<Value>, completion: @escaping StoreCompletion<Value>) {
        let limits = self.limits
        self.write(changing: write.profile, { transaction in
            let outcome = try write.steps(transaction, limits)
            if write.growsStorage { try QuotaSteps.check(write.profile, limits: limits, in: transaction) }
            return outcome
        }, completion: completion)
    }

    public func perform<Value: Sendable>(_ write: StoreWrite<Value>) async throws(StoreError) -> Value {
        try await awaitCompletion { perform(write, completion: $0) }
    }
}
