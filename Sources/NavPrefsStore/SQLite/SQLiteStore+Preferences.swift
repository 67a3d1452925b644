public import NavPrefsCore
public import NavPrefsJSON

extension SQLiteStore {
    public func preferences(of profile: ProfileName) async throws(StoreError) -> PreferenceSnapshot {
        try await readers.read { connection in
            try connection.transaction {
                guard let versions = try connection.queryFirst(
                    "SELECT defaults_version, preferences_version FROM profiles WHERE name = ?1", .text(profile.rawValue),
                    row: { (defaults: Version($0.int64(0)), all: Version($0.int64(1))) })
                else { throw StoreError.profileNotFound(profile) }
                var stored: [PreferenceKey: PreferenceSlot.Stored] = [:]
                for row in try connection.query(
                    "SELECT key, value, version FROM preferences WHERE profile = ?1 AND value IS NOT NULL",
                    .text(profile.rawValue), row: { ($0.text(0), $0.text(1), $0.int64(2)) }) {
                    guard let key = try? PreferenceKey(row.0) else { throw StoreError.corrupted(reason: "stored key '\(row.0)'") }
                    stored[key] = PreferenceSlot.Stored(value: try Self.parse(row.1), version: Version(row.2))
                }
                let registered = try Self.readDefaults(of: profile, in: connection)
                return PreferenceSnapshot(profile: profile, stored: stored, registered: registered,
                                          defaultsVersion: versions.defaults, version: versions.all)
            }
        }
    }

    public func preference(_ key: PreferenceKey, of profile: ProfileName) async throws(StoreError) -> PreferenceSlot {
        try await readers.read { connection in
            guard let slot = try Self.readSlot(key, of: profile, in: connection) else { throw StoreError.profileNotFound(profile) }
            return slot
        }
    }

    public func setPreference(_ value: JSONValue, for key: PreferenceKey, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> PreferenceChange {
        let stored = try StoreRules.storedValue(value, for: key)
        let limit = options.maxPreferencesPerProfile
        let cache = counters
        return try await writer.write { context in
            let connection = context.connection
            try Self.requireProfile(profile, for: precondition, in: context)
            guard let before = try Self.readSlot(key, of: profile, in: connection) else { throw StoreError.preconditionFailed(current: nil) }
            if let precondition, !precondition.admits(before.version) {
                throw StoreError.preconditionFailed(current: before.version)
            }
            if before.stored == nil {
                let count = try connection.queryFirst("SELECT count(*) FROM preferences WHERE profile = ?1 AND value IS NOT NULL",
                                                      .text(profile.rawValue), row: { $0.int64(0) }) ?? 0
                guard count < limit else { throw StoreError.tooManyPreferences(limit: limit) }
            }
            guard let eventID = try Self.nextEventID(of: profile, in: connection) else {
                throw StoreError.profileNotFound(profile)
            }
            try connection.run("""
                INSERT INTO preferences (profile, key, value, version) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (profile, key) DO UPDATE SET value = excluded.value, version = excluded.version
                """, .text(profile.rawValue), .text(key.rawValue), .text(stored.jsonText), .integer(eventID))
            let after = PreferenceSlot(key: key, stored: .init(value: stored, version: Version(eventID)),
                                       registered: before.registered, defaultsVersion: before.defaultsVersion)
            let event = try Self.event(forChangeOf: after, removed: false, profile: profile, in: connection)
            let logged = try Self.log(event, id: eventID, for: profile, in: connection)
            return Committed(value: PreferenceChange(slot: after, eventID: eventID, created: before.source == .absent),
                             events: [logged]) { context in
                context.knownProfiles.insert(profile.rawValue)
                if key == WellKnownKey.counter {
                    cache.committed(CounterState(profile: profile, slot: after))
                } else {
                    cache.profileExists(profile)
                }
            }
        }
    }

    public func removePreference(_ key: PreferenceKey, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> PreferenceChange {
        let cache = counters
        return try await writer.write { context in
            let connection = context.connection
            guard let before = try Self.readSlot(key, of: profile, in: connection) else {
                throw precondition == nil ? StoreError.profileNotFound(profile) : StoreError.preconditionFailed(current: nil)
            }
            if let precondition, !precondition.admits(before.version) {
                throw StoreError.preconditionFailed(current: before.version)
            }
            guard before.stored != nil else { throw StoreError.preferenceNotStored(key) }
            guard let eventID = try Self.nextEventID(of: profile, in: connection) else { throw StoreError.profileNotFound(profile) }
            // A tombstone keeps the removal's version (see the schema); old tombstones of keys no
            // view combines are pruned, so removals cannot grow a profile without bound.
            try connection.run("UPDATE preferences SET value = NULL, version = ?3 WHERE profile = ?1 AND key = ?2",
                               .text(profile.rawValue), .text(key.rawValue), .integer(eventID))
            try connection.run("""
                DELETE FROM preferences WHERE profile = ?1 AND value IS NULL AND key NOT IN ('numIndex', 'fontSizekey', 'sliderValuekey')
                  AND version < (SELECT version FROM preferences WHERE profile = ?1 AND value IS NULL
                                 AND key NOT IN ('numIndex', 'fontSizekey', 'sliderValuekey')
                                 ORDER BY version DESC LIMIT 1 OFFSET ?2)
                """, .text(profile.rawValue), .integer(Int64(Self.keptTombstones)))
            let after = PreferenceSlot(key: key, stored: nil, removedAt: Version(eventID), registered: before.registered,
                                       defaultsVersion: before.defaultsVersion)
            let event = try Self.event(forChangeOf: after, removed: true, profile: profile, in: connection, version: Version(eventID))
            let logged = try Self.log(event, id: eventID, for: profile, in: connection)
            return Committed(value: PreferenceChange(slot: after, eventID: eventID), events: [logged]) { _ in
                if key == WellKnownKey.counter { cache.committed(CounterState(profile: profile, slot: after)) }
            }
        }
    }

    /// Tombstones of ordinary keys kept per profile (their versions matter only while they are recent).
    static let keptTombstones = 1_000

    /// The event a change of `slot` logs (see ``StoreRules/event(forChangeOf:removed:profile:version:readSlot:)``).
    private static func event(
        forChangeOf slot: PreferenceSlot, removed: Bool, profile: ProfileName, in connection: SQLiteConnection,
        version: Version? = nil
    ) throws -> ChangeEvent {
        try StoreRules.event(forChangeOf: slot, removed: removed, profile: profile, version: version) { key in
            try readSlot(key, of: profile, in: connection)
        }
    }
}
