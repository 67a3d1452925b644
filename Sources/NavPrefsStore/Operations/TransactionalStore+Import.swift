import NavPrefsCore

/// What a store holds, as far as an import is concerned (see ``TransactionalStore/content()``).
public struct StoreContent: Sendable, Equatable, CustomStringConvertible {
    /// Profiles holding anything: every one but a `default` never written to.
    public var profiles: Int
    public var tokens: Int
    public var secrets: Int
    /// What an import that did not finish recorded when it began; `nil` when none.
    public var unfinishedImport: String?

    public init(profiles: Int, tokens: Int, secrets: Int, unfinishedImport: String?) {
        self.profiles = profiles
        self.tokens = tokens
        self.secrets = secrets
        self.unfinishedImport = unfinishedImport
    }

    /// Nothing an import could collide with: what the service made of a database it never served a write on.
    public var isEmpty: Bool { profiles == 0 && tokens == 0 && secrets == 0 && unfinishedImport == nil }

    public var description: String {
        var parts = [profiles == 1 ? "1 profile with data" : "\(profiles) profiles with data",
                     tokens == 1 ? "1 token" : "\(tokens) tokens", secrets == 1 ? "1 secret" : "\(secrets) secrets"]
        if let unfinishedImport { parts.append("an unfinished import (\(unfinishedImport))") }
        return parts.joined(separator: ", ")
    }
}

/// Import: the transfer format's records written into a store, in batches of transactions,
/// under a marker that keeps the store from being served until the last batch is in.
extension TransactionalStore {
    /// What the store holds that an import would collide with.
    public func content() async throws(StoreError) -> StoreContent {
        try await read { transaction in
            let counts = try transaction.firstRow(.contentCounts)
            return StoreContent(profiles: Int(try counts?.int64(0) ?? 0), tokens: Int(try counts?.int64(1) ?? 0),
                                secrets: Int(try counts?.int64(2) ?? 0),
                                unfinishedImport: try transaction.firstRow(.marker, .text(StoreMarker.importInProgress))?.text(0))
        }
    }

    /// The first transaction of an import: with `replacing`, deletes everything the store holds
    /// (profiles, values, defaults, sessions, events, tokens, secrets); then records `note` (what
    /// is imported, since when) under ``StoreMarker/importInProgress``, which the service refuses
    /// to serve until ``finishImport()`` removes it.
    public func beginImport(replacing: Bool, note: String) async throws(StoreError) {
        try await write { transaction in
            if replacing {
                for statement: StoreStatement in [.clearEvents, .clearSessions, .clearDefaults, .clearPreferences, .clearProfiles,
                                                  .resetDefaultProfile, .clearTokens, .clearSecrets] {
                    try transaction.run(statement)
                }
            }
            try transaction.run(.setMarker, .text(StoreMarker.importInProgress), .text(note))
            return WriteOutcome(())
        }
    }

    /// Writes `batch` in one transaction, one statement per table.
    public func importBatch(_ batch: TransferBatch) async throws(StoreError) {
        let statements = batch.statements.map { ($0.0, $0.1.json) }
        try await write { transaction in
            for (statement, rows) in statements { try transaction.run(statement, .text(rows)) }
            return WriteOutcome(())
        }
    }

    /// The last transaction of an import: each event's place in its profile's log is counted
    /// (for the log's bound in bytes), and the store may be served.
    public func finishImport() async throws(StoreError) {
        try await write { transaction in
            try transaction.run(.renumberEventLog)
            try transaction.run(.deleteMarker, .text(StoreMarker.importInProgress))
            return WriteOutcome(())
        }
    }
}
