public import NavPrefsCore
public import NavPrefsJSON

extension PostgresStore {
    public func preferences(of profile: ProfileName) async throws(StoreError) -> PreferenceSnapshot {
        try await read { connection in
            // Three statements, one snapshot.
            try connection.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
                guard let versions = try connection.queryFirst(
                    "SELECT defaults_version, preferences_version FROM profiles WHERE name = $1", .text(profile.rawValue))
                else { throw StoreError.profileNotFound(profile) }
                var stored: [PreferenceKey: PreferenceSlot.Stored] = [:]
                for row in try connection.query("SELECT key, value, version FROM preferences WHERE profile = $1 AND value IS NOT NULL",
                                                .text(profile.rawValue)) {
                    let name = try row.text(0)
                    guard let key = try? PreferenceKey(name) else { throw StoreError.corrupted(reason: "stored key '\(name)'") }
                    stored[key] = PreferenceSlot.Stored(value: try Self.parse(try row.text(1)), version: Version(try row.int64(2)))
                }
                let registered = try Self.readDefaults(of: profile, in: connection)
                return PreferenceSnapshot(profile: profile, stored: stored, registered: registered,
                                          defaultsVersion: Version(try versions.int64(0)), version: Version(try versions.int64(1)))
            }
        }
    }

    public func preference(_ key: PreferenceKey, of profile: ProfileName) async throws(StoreError) -> PreferenceSlot {
        try await read { connection in
            guard let slot = try Self.readSlot(key, of: profile, in: connection) else { throw StoreError.profileNotFound(profile) }
            return slot
        }
    }

    public func setPreference(_ value: JSONValue, for key: PreferenceKey, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> PreferenceChange {
        let stored = try StoreRules.storedValue(value, for: key)
        let limit = options.maxPreferencesPerProfile
        return try await write { connection in
            guard let claim = try Self.claimEventID(of: profile, creating: Self.createsProfile(precondition),
                                                    touchingPreferences: true, in: connection),
                  let before = try Self.readSlot(key, of: profile, in: connection)
            else { throw StoreError.preconditionFailed(current: nil) }
            if let precondition, !precondition.admits(before.version) {
                throw StoreError.preconditionFailed(current: before.version)
            }
            if before.stored == nil {
                let count = try connection.queryFirst("SELECT count(*) FROM preferences WHERE profile = $1 AND value IS NOT NULL",
                                                      .text(profile.rawValue))?.int64(0) ?? 0
                guard count < limit else { throw StoreError.tooManyPreferences(limit: limit) }
            }
            let eventID = claim.eventID
            try connection.query("""
                INSERT INTO preferences (profile, key, value, version) VALUES ($1, $2, $3, $4)
                ON CONFLICT (profile, key) DO UPDATE SET value = excluded.value, version = excluded.version
                """, .text(profile.rawValue), .text(key.rawValue), .text(stored.jsonText), .integer(eventID))
            let after = PreferenceSlot(key: key, stored: .init(value: stored, version: Version(eventID)),
                                       registered: before.registered, defaultsVersion: before.defaultsVersion)
            let event = try Self.event(forChangeOf: after, removed: false, profile: profile, in: connection)
            let logged = try Self.log(event, id: eventID, for: profile, in: connection)
            return Written(PreferenceChange(slot: after, eventID: eventID, created: before.source == .absent), event: logged)
        }
    }

    public func removePreference(_ key: PreferenceKey, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> PreferenceChange {
        try await write { connection in
            guard let claim = try Self.claimEventID(of: profile, creating: false, touchingPreferences: true, in: connection),
                  let before = try Self.readSlot(key, of: profile, in: connection)
            else { throw precondition == nil ? StoreError.profileNotFound(profile) : StoreError.preconditionFailed(current: nil) }
            if let precondition, !precondition.admits(before.version) {
                throw StoreError.preconditionFailed(current: before.version)
            }
            guard before.stored != nil else { throw StoreError.preferenceNotStored(key) }
            let eventID = claim.eventID
            // A tombstone keeps the removal's version (see the schema); old tombstones of keys no
            // view combines are pruned, so removals cannot grow a profile without bound.
            try connection.query("UPDATE preferences SET value = NULL, version = $3 WHERE profile = $1 AND key = $2",
                                 .text(profile.rawValue), .text(key.rawValue), .integer(eventID))
            try connection.query("""
                DELETE FROM preferences WHERE profile = $1 AND value IS NULL AND key NOT IN ('numIndex', 'fontSizekey', 'sliderValuekey')
                  AND version < (SELECT version FROM preferences WHERE profile = $1 AND value IS NULL
                                 AND key NOT IN ('numIndex', 'fontSizekey', 'sliderValuekey')
                                 ORDER BY version DESC LIMIT 1 OFFSET $2)
                """, .text(profile.rawValue), .integer(Int64(SQLiteStore.keptTombstones)))
            let after = PreferenceSlot(key: key, stored: nil, removedAt: Version(eventID), registered: before.registered,
                                       defaultsVersion: before.defaultsVersion)
            let event = try Self.event(forChangeOf: after, removed: true, profile: profile, in: connection, version: Version(eventID))
            let logged = try Self.log(event, id: eventID, for: profile, in: connection)
            return Written(PreferenceChange(slot: after, eventID: eventID), event: logged)
        }
    }

    /// Whether a write with `precondition` creates a missing profile: only unconditional ones
    /// and those that ask for absence; If-Match needs a current representation.
    static func createsProfile(_ precondition: WritePrecondition?) -> Bool {
        switch precondition {
        case nil, .absent?, .noneOf?: true
        case .exists?, .version?: false
        }
    }

    /// The event a change of `slot` logs (see ``StoreRules/event(forChangeOf:removed:profile:version:readSlot:)``).
    private static func event(
        forChangeOf slot: PreferenceSlot, removed: Bool, profile: ProfileName, in connection: PostgresConnection,
        version: Version? = nil
    ) throws -> ChangeEvent {
        try StoreRules.event(forChangeOf: slot, removed: removed, profile: profile, version: version) { key in
            try readSlot(key, of: profile, in: connection)
        }
    }
}
