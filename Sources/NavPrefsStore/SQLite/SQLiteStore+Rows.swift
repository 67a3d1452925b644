import NavPrefsCore
import NavPrefsJSON

/// Statements every write and read shares: profiles, the event sequence, the log, slots.
extension SQLiteStore {
    /// Creates the profile's row unless the writer already knows it exists.
    static func createProfileIfNeeded(_ profile: ProfileName, in context: WriteContext) throws {
        guard !context.knownProfiles.contains(profile.rawValue) else { return }
        try context.connection.run(
            "INSERT INTO profiles (name, created_at, last_event_id) VALUES (?1, ?2, 0) ON CONFLICT DO NOTHING",
            .text(profile.rawValue), .integer(now()))
    }

    /// Takes the profile's next event id (also the version of what the write stores, and of the
    /// profile's preferences as a whole); `nil` if the profile does not exist. Rolled back with
    /// the write if the write is refused.
    static func nextEventID(of profile: ProfileName, in connection: SQLiteConnection) throws -> Int64? {
        try connection.queryFirst(
            "UPDATE profiles SET last_event_id = last_event_id + 1, preferences_version = last_event_id + 1 "
                + "WHERE name = ?1 RETURNING last_event_id",
            .text(profile.rawValue)) { $0.int64(0) }
    }

    /// Appends `event` to the profile's log under `id` (from ``nextEventID(of:in:)``); returns
    /// the entry, for the feed once the transaction commits.
    @discardableResult
    static func log(_ event: ChangeEvent, id: Int64, for profile: ProfileName, in connection: SQLiteConnection) throws -> LoggedEvent {
        let logged = LoggedEvent(id: id, profile: profile, type: event.type, data: event.data, timestamp: now())
        try connection.run(
            "INSERT INTO events (profile, id, type, data, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            .text(profile.rawValue), .integer(id), .text(logged.type.rawValue), .text(logged.data), .integer(logged.timestamp))
        return logged
    }

    /// `key` of `profile` in both layers; `nil` if the profile does not exist.
    static func readSlot(_ key: PreferenceKey, of profile: ProfileName, in connection: SQLiteConnection) throws -> PreferenceSlot? {
        let row = try connection.queryFirst("""
            SELECT s.value, s.version, d.value, p.defaults_version
            FROM profiles p
            LEFT JOIN preferences s ON s.profile = p.name AND s.key = ?2
            LEFT JOIN registered_defaults d ON d.profile = p.name AND d.key = ?2
            WHERE p.name = ?1
            """, .text(profile.rawValue), .text(key.rawValue)) { row in
            (stored: row.isNull(0) ? nil : row.text(0),
             version: row.isNull(1) ? nil : row.int64(1),
             registered: row.isNull(2) ? nil : row.text(2),
             defaultsVersion: row.int64(3))
        }
        guard let row else { return nil }
        let stored = try row.stored.map { PreferenceSlot.Stored(value: try parse($0), version: Version(row.version ?? 0)) }
        return PreferenceSlot(
            key: key,
            stored: stored,
            removedAt: stored == nil ? row.version.map(Version.init) : nil,
            registered: try row.registered.map(parse),
            defaultsVersion: Version(row.defaultsVersion))
    }

    /// A stored JSON text. Only the store writes these, so a failure means damaged data.
    static func parse(_ text: String) throws -> JSONValue {
        do {
            return try JSONValue.parse(text)
        } catch {
            throw StoreError.corrupted(reason: "a stored value is not JSON: \(error)")
        }
    }

    /// Refuses the write when the profile does not exist and the write is conditional, and
    /// creates the profile otherwise (a profile comes into being on its first write).
    static func requireProfile(_ profile: ProfileName, for precondition: WritePrecondition?, in context: WriteContext) throws {
        switch precondition {
        case nil, .absent?, .noneOf?:
            try createProfileIfNeeded(profile, in: context)
        case .exists?, .version?:
            let exists = try context.knownProfiles.contains(profile.rawValue) || (context.connection.queryFirst(
                "SELECT 1 FROM profiles WHERE name = ?1", .text(profile.rawValue)) { _ in true } ?? false)
            guard exists else { throw StoreError.preconditionFailed(current: nil) }
        }
    }
}

extension SQLiteConnection {
    /// Runs `body` in a read transaction, so that several statements see one snapshot.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }
}
