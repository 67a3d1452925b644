/// Running a write built as a value (``StoreWrite``): every write of ``Store`` comes through here.
extension TransactionalStore {
    public func perform<Value: Sendable>(_ write: StoreWrite<Value>) async throws(StoreError) -> Value {
        let limits = self.limits
        return try await self.write(changing: write.profile) { transaction in try write.steps(transaction, limits) }
    }
}
