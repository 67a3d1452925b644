public import NavPrefsCore
public import NavPrefsJSON

extension SQLiteStore {
    public func defaults(of profile: ProfileName) async throws(StoreError) -> DefaultsState {
        try await readers.read { connection in
            try connection.transaction {
                guard let version = try connection.queryFirst(
                    "SELECT defaults_version FROM profiles WHERE name = ?1", .text(profile.rawValue), row: { $0.int64(0) })
                else { throw StoreError.profileNotFound(profile) }
                return DefaultsState(profile: profile, values: try Self.readDefaults(of: profile, in: connection), version: Version(version))
            }
        }
    }

    public func setDefaults(_ defaults: JSONObject, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> DefaultsChange {
        let values = try StoreRules.storedDefaults(defaults)
        let cache = counters
        return try await writer.write { [values] context in
            let connection = context.connection
            try Self.requireProfile(profile, for: precondition, in: context)
            guard let current = try connection.queryFirst(
                "SELECT defaults_version FROM profiles WHERE name = ?1", .text(profile.rawValue), row: { Version($0.int64(0)) })
            else { throw StoreError.preconditionFailed(current: nil) }
            if let precondition, !precondition.admits(current) {
                throw StoreError.preconditionFailed(current: current)
            }
            guard let eventID = try Self.nextEventID(of: profile, in: connection) else { throw StoreError.profileNotFound(profile) }
            try connection.run("DELETE FROM registered_defaults WHERE profile = ?1", .text(profile.rawValue))
            for (position, member) in values.enumerated() {
                try connection.run("INSERT INTO registered_defaults (profile, key, value, position) VALUES (?1, ?2, ?3, ?4)",
                                   .text(profile.rawValue), .text(member.key), .text(member.value.jsonText), .integer(Int64(position)))
            }
            try connection.run("UPDATE profiles SET defaults_version = ?2 WHERE name = ?1", .text(profile.rawValue), .integer(eventID))
            let state = DefaultsState(profile: profile, values: values, version: Version(eventID))
            let logged = try Self.log(.defaults(profile, values, version: state.version), id: eventID, for: profile, in: connection)
            return Committed(value: DefaultsChange(state: state, eventID: eventID), events: [logged]) { context in
                context.knownProfiles.insert(profile.rawValue)
                // The counter may read its default now (or no longer): read it afresh next time.
                cache.invalidate(profile)
            }
        }
    }

    /// The registered defaults of `profile`, in the order they were registered.
    static func readDefaults(of profile: ProfileName, in connection: SQLiteConnection) throws -> JSONObject {
        let rows = try connection.query("SELECT key, value FROM registered_defaults WHERE profile = ?1 ORDER BY position",
                                        .text(profile.rawValue)) { ($0.text(0), $0.text(1)) }
        return JSONObject(try rows.map { ($0.0, try parse($0.1)) })
    }
}
