import NavPrefsCore
import NavPrefsJSON

/// Statements every write and read shares: the event sequence, the log, slots, transactions.
extension PostgresStore {
    /// What taking an event id found out about the profile.
    struct Claim {
        /// The profile's next event id: the version of what the write stores.
        let eventID: Int64
        /// Whether this write created the profile.
        let created: Bool
        let defaultsVersion: Version
    }

    /// Takes the profile's next event id under the profile row's lock, which the transaction
    /// holds until it ends: writes of one profile run one after the other, commit in id order,
    /// and every statement after this one sees the writes committed before it.
    ///
    /// - Parameters:
    ///   - creating: create the profile if it does not exist (its first write).
    ///   - touchingPreferences: the write changes a value or the defaults, so the id also becomes
    ///     the version of the profile's preferences as a whole (sessions leave it alone).
    /// - Returns: `nil` if the profile does not exist and `creating` is `false`. Rolled back with
    ///   the write if the write is refused.
    static func claimEventID(of profile: ProfileName, creating: Bool, touchingPreferences: Bool,
                             in connection: PostgresConnection) throws -> Claim? {
        let row: PostgresRow?
        if creating {
            // `xmax = 0` holds for a row this statement inserted, not for one it updated.
            row = try connection.queryFirst("""
                INSERT INTO profiles AS p (name, created_at, last_event_id, preferences_version)
                VALUES ($1, \(PostgresSchema.nowMilliseconds), 1, CASE WHEN $2::boolean THEN 1 ELSE 0 END)
                ON CONFLICT (name) DO UPDATE SET last_event_id = p.last_event_id + 1,
                    preferences_version = CASE WHEN $2::boolean THEN p.last_event_id + 1 ELSE p.preferences_version END
                RETURNING last_event_id, xmax = 0, defaults_version
                """, .text(profile.rawValue), .bool(touchingPreferences))
        } else {
            row = try connection.queryFirst("""
                UPDATE profiles SET last_event_id = last_event_id + 1,
                    preferences_version = CASE WHEN $2::boolean THEN last_event_id + 1 ELSE preferences_version END
                WHERE name = $1
                RETURNING last_event_id, false, defaults_version
                """, .text(profile.rawValue), .bool(touchingPreferences))
        }
        guard let row else { return nil }
        return Claim(eventID: try row.int64(0), created: try row.bool(1), defaultsVersion: Version(try row.int64(2)))
    }

    /// Appends `event` to the profile's log under `id` and notifies every instance's listener
    /// (`profile:id`, delivered when the transaction commits). Returns the entry as logged.
    static func log(_ event: ChangeEvent, id: Int64, for profile: ProfileName, in connection: PostgresConnection) throws -> LoggedEvent {
        let data = event.data
        let row = try connection.queryFirst("""
            WITH logged AS (
                INSERT INTO events (profile, id, type, data, created_at)
                VALUES ($1::text, $2::bigint, $3::text, $4::text, \(PostgresSchema.nowMilliseconds))
                RETURNING created_at)
            SELECT created_at, pg_notify('\(PostgresListener.channel)', $1::text || ':' || $2::bigint::text) FROM logged
            """, .text(profile.rawValue), .integer(id), .text(event.type.rawValue), .text(data))
        return LoggedEvent(id: id, profile: profile, type: event.type, data: data, timestamp: try row?.int64(0) ?? 0)
    }

    /// `keys` of `profile` in both layers, in the order asked (one statement: one snapshot);
    /// `nil` if the profile does not exist.
    static func readSlots(_ keys: [PreferenceKey], of profile: ProfileName, in connection: PostgresConnection) throws -> [PreferenceSlot]? {
        let rows = try connection.query("""
            SELECT s.value, s.version, d.value, p.defaults_version
            FROM profiles p
            CROSS JOIN unnest($2::text[]) WITH ORDINALITY AS k(key, position)
            LEFT JOIN preferences s ON s.profile = p.name AND s.key = k.key
            LEFT JOIN registered_defaults d ON d.profile = p.name AND d.key = k.key
            WHERE p.name = $1
            ORDER BY k.position
            """, .text(profile.rawValue), .names(keys.map(\.rawValue)))
        guard rows.count == keys.count else { return nil }
        return try zip(keys, rows).map { key, row in
            let version = try row.optionalInt64(1)
            let stored = try row.optionalText(0).map { PreferenceSlot.Stored(value: try parse($0), version: Version(version ?? 0)) }
            return PreferenceSlot(key: key, stored: stored, removedAt: stored == nil ? version.map(Version.init) : nil,
                                  registered: try row.optionalText(2).map(parse), defaultsVersion: Version(try row.int64(3)))
        }
    }

    /// One key of `profile` in both layers; `nil` if the profile does not exist.
    static func readSlot(_ key: PreferenceKey, of profile: ProfileName, in connection: PostgresConnection) throws -> PreferenceSlot? {
        try readSlots([key], of: profile, in: connection)?.first
    }

    /// A stored JSON text. Only the store writes these, so a failure means damaged data.
    static func parse(_ text: String) throws -> JSONValue {
        do {
            return try JSONValue.parse(text)
        } catch {
            throw StoreError.corrupted(reason: "a stored value is not JSON: \(error)")
        }
    }

    // MARK: The log

    private static func loggedEvent(_ row: PostgresRow, of profile: ProfileName, offset: Int = 0) throws -> LoggedEvent {
        LoggedEvent(id: try row.int64(offset), profile: profile, type: EventType(rawValue: try row.text(offset + 1)) ?? .reset,
                    data: try row.text(offset + 2), timestamp: try row.int64(offset + 3))
    }

    /// Logged events of `profile` after `id`, oldest first, at most `limit`.
    static func readEvents(of profile: ProfileName, after id: Int64, limit: Int, on connection: PostgresConnection) throws -> [LoggedEvent] {
        try connection.query("""
            SELECT id, type, data, created_at FROM events WHERE profile = $1 AND id > $2 ORDER BY id LIMIT $3
            """, .text(profile.rawValue), .integer(id), .integer(Int64(limit))).map { try loggedEvent($0, of: profile) }
    }

    /// Logged events of `profile` with ids in `after + 1 ... last`, oldest first.
    static func readEvents(of profile: ProfileName, after id: Int64, upTo last: Int64, on connection: PostgresConnection) throws -> [LoggedEvent] {
        try connection.query("""
            SELECT id, type, data, created_at FROM events WHERE profile = $1 AND id > $2 AND id <= $3 ORDER BY id
            """, .text(profile.rawValue), .integer(id), .integer(last)).map { try loggedEvent($0, of: profile) }
    }

    /// Every logged event after each profile's position, per profile oldest first (catch-ups).
    static func readEvents(after positions: [ProfileName: Int64], on connection: PostgresConnection) throws -> [ProfileName: [LoggedEvent]] {
        let profiles = Array(positions.keys)
        let rows = try connection.query("""
            SELECT e.profile, e.id, e.type, e.data, e.created_at
            FROM unnest($1::text[], $2::bigint[]) AS k(profile, after)
            JOIN events e ON e.profile = k.profile AND e.id > k.after
            ORDER BY e.profile, e.id
            """, .names(profiles.map(\.rawValue)), .integers(profiles.map { positions[$0] ?? 0 }))
        var found: [ProfileName: [LoggedEvent]] = [:]
        for row in rows {
            guard let profile = try? ProfileName(try row.text(0)) else { continue }
            found[profile, default: []].append(try loggedEvent(row, of: profile, offset: 1))
        }
        return found
    }
}

extension PostgresConnection {
    /// Runs `body` in a transaction (`begin` chooses its kind), committing if it returns and
    /// rolling back if it throws.
    ///
    /// A connection lost at `BEGIN` is reported as safe to retry: nothing of the job reached the
    /// server, so the pool may run it again on a new connection. This is what a pooled
    /// connection that the server closed while idle (a restart) looks like.
    func transaction<T>(_ begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        do {
            try execute(begin)
        } catch var error {
            if error.isConnectionLost { error.safeToRetry = true }
            throw error
        }
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isAlive { _ = try? execute("ROLLBACK") }
            throw error
        }
    }
}
