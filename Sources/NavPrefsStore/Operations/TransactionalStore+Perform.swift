/// Running a write built as a value (``StoreWrite``): every write of ``Store`` comes through here.
extension TransactionalStore {
    public func perform<Value: Sendable>(_ write: StoreWrite<Value>, completion: @escaping StoreCompletion<Value>) {
        let limits = self.limits
        self.write(changing: write.profile, { transaction in try write.steps(transaction, limits) }, completion: completion)
    }

    public func perform<Value: Sendable>(_ write: StoreWrite<Value>) async throws(StoreError) -> Value {
        try await awaitCompletion { perform(write, completion: $0) }
    }
}
