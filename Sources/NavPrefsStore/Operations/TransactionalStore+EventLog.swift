public import NavPrefsCore

/// Reading the event log, and the store's health.
extension TransactionalStore {
    public func eventLogBounds(of profile: ProfileName) async throws(StoreError) -> EventLogBounds {
        try await read(snapshot: false) { transaction in try Self.eventLogBounds(of: profile, in: transaction) }
    }

    /// The bounds as one statement reads them (a profile that does not exist: earliest 1, latest 0).
    public static func eventLogBounds(of profile: ProfileName, in transaction: any StoreTransaction) throws -> EventLogBounds {
        try TransactionSteps.eventLogBounds(of: profile, in: transaction)
    }
}

extension Store {
    /// Logged events of `profile` with an id greater than `id`, oldest first, at most `limit`,
    /// and with `maxBytes` at most that many bytes of data (the first always: a page is never empty).
    public func events(of profile: ProfileName, after id: Int64, limit: Int, maxBytes: Int?) async throws(StoreError) -> [LoggedEvent] {
        try await perform(.events(of: profile, after: id, limit: limit, maxBytes: maxBytes))
    }

    /// Whether the store answers (for readiness checks).
    public func ping() async throws(StoreError) {
        try await perform(.ping)
    }
}

extension StoreRead where Value == [LoggedEvent] {
    /// ``Store/events(of:after:limit:maxBytes:)`` as a value.
    public static func events(of profile: ProfileName, after id: Int64, limit: Int, maxBytes: Int?) -> StoreRead {
        StoreRead(snapshot: false, needsPrimary: true) { transaction in
            try TransactionSteps.events(of: profile, after: id, limit: limit, maxBytes: maxBytes, in: transaction)
        }
    }
}

extension StoreRead where Value == Void {
    /// ``Store/ping()`` as a value.
    public static var ping: StoreRead {
        StoreRead(snapshot: false, needsPrimary: true) { transaction in _ = try transaction.rows(.ping) }
    }
}
