import NavPrefsCore
import NavPrefsStore

/// A transaction on one SQLite connection, as the store algorithm sees it: the writer's (which
/// may claim event ids) or a reader's (which only reads).
final class SQLiteTransaction: StoreTransaction {
    let connection: SQLiteConnection
    /// The writer's knowledge; `nil` on a reader.
    let writeContext: WriteContext?
    /// Profiles this transaction claimed an id of: they exist once it commits.
    private(set) var claimedProfiles: [String] = []

    init(connection: SQLiteConnection, writer: WriteContext?) {
        self.connection = connection
        self.writeContext = writer
    }

    func rows(_ statement: StoreStatement, _ values: [StatementValue]) throws -> [StoreRow] {
        try connection.rows(statement, values)
    }

    /// Creates the profile (unless the writer knows it exists), then takes its next id. SQLite
    /// has one writer: its transaction is the lock.
    func claimEventID(of profile: ProfileName, creating: Bool, touchingPreferences: Bool) throws -> EventClaim? {
        guard let writer = writeContext else { throw StoreError.internal(reason: "a read transaction tried to write") }
        guard writer.claimsProfiles else {
            throw StoreError.internal(reason: "profile data is written only by the process that serves \(connection.path); this one works beside it")
        }
        var created = false
        if creating && !writer.knownProfiles.contains(profile.rawValue) {
            try connection.run(SQLiteStatements.createProfile, .text(profile.rawValue))
            created = connection.changes > 0
        }
        let claim = try connection.queryFirst(SQLiteStatements.claimEventID, .text(profile.rawValue), .bool(touchingPreferences)) { row in
            EventClaim(eventID: row.int64(0), created: created, defaultsVersion: Version(row.int64(1)))
        }
        if claim != nil { claimedProfiles.append(profile.rawValue) }
        return claim
    }
}
