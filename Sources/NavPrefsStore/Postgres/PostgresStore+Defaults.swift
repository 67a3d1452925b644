public import NavPrefsCore
public import NavPrefsJSON

extension PostgresStore {
    public func defaults(of profile: ProfileName) async throws(StoreError) -> DefaultsState {
        try await read { connection in
            try connection.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
                guard let version = try connection.queryFirst(
                    "SELECT defaults_version FROM profiles WHERE name = $1", .text(profile.rawValue))?.int64(0)
                else { throw StoreError.profileNotFound(profile) }
                return DefaultsState(profile: profile, values: try Self.readDefaults(of: profile, in: connection), version: Version(version))
            }
        }
    }

    public func setDefaults(_ defaults: JSONObject, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> DefaultsChange {
        let values = try StoreRules.storedDefaults(defaults)
        return try await write { [values] connection in
            guard let claim = try Self.claimEventID(of: profile, creating: Self.createsProfile(precondition), touchingPreferences: true,
                                                    in: connection)
            else { throw StoreError.preconditionFailed(current: nil) }
            if let precondition, !precondition.admits(claim.defaultsVersion) {
                throw StoreError.preconditionFailed(current: claim.defaultsVersion)
            }
            let eventID = claim.eventID
            try connection.query("DELETE FROM registered_defaults WHERE profile = $1", .text(profile.rawValue))
            if !values.isEmpty {
                // One statement for all of them: ($1, $2, $3, 0), ($1, $4, $5, 1), ...
                var rows: [String] = []
                var parameters: [PostgresValue] = [.text(profile.rawValue)]
                for (position, member) in values.enumerated() {
                    rows.append("($1, $\(parameters.count + 1), $\(parameters.count + 2), \(position))")
                    parameters += [.text(member.key), .text(member.value.jsonText)]
                }
                try connection.query("INSERT INTO registered_defaults (profile, key, value, position) VALUES "
                                     + rows.joined(separator: ", "), parameters: parameters)
            }
            try connection.query("UPDATE profiles SET defaults_version = $2 WHERE name = $1", .text(profile.rawValue), .integer(eventID))
            let state = DefaultsState(profile: profile, values: values, version: Version(eventID))
            let logged = try Self.log(.defaults(profile, values, version: state.version), id: eventID, for: profile, in: connection)
            return Written(DefaultsChange(state: state, eventID: eventID), event: logged)
        }
    }

    /// The registered defaults of `profile`, in the order they were registered.
    static func readDefaults(of profile: ProfileName, in connection: PostgresConnection) throws -> JSONObject {
        let rows = try connection.query("SELECT key, value FROM registered_defaults WHERE profile = $1 ORDER BY position",
                                        .text(profile.rawValue))
        return JSONObject(try rows.map { (try $0.text(0), try parse(try $0.text(1))) })
    }
}
