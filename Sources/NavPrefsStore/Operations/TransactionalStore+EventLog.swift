public import NavPrefsCore

/// Reading the event log, and the store's health.
extension TransactionalStore {
    public func eventLogBounds(of profile: ProfileName) async throws(StoreError) -> EventLogBounds {
        try await read(snapshot: false) { transaction in try Self.eventLogBounds(of: profile, in: transaction) }
    }

    /// The bounds as one statement reads them (a profile that does not exist: earliest 1, latest 0).
    public static func eventLogBounds(of profile: ProfileName, in transaction: any StoreTransaction) throws -> EventLogBounds {
        try Steps.eventLogBounds(of: profile, in: transaction)
    }

    public func events(of profile: ProfileName, after id: Int64, limit: Int, maxBytes: Int?) async throws(StoreError) -> [LoggedEvent] {
        try await read(snapshot: false) { transaction in
            try Steps.events(of: profile, after: id, limit: limit, maxBytes: maxBytes, in: transaction)
        }
    }

    public func ping() async throws(StoreError) {
        _ = try await read(snapshot: false) { transaction in try transaction.rows(.ping) }
    }
}
