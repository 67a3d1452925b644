public import NavPrefsCore
import NavPrefsJSON

extension PostgresStore {
    public func font(of profile: ProfileName) async throws(StoreError) -> FontState {
        try await read { connection in
            guard let slots = try Self.readSlots([WellKnownKey.sliderValue, WellKnownKey.fontSize], of: profile, in: connection)
            else { throw StoreError.profileNotFound(profile) }
            return FontState(profile: profile, slider: slots[0], fontSize: slots[1])
        }
    }

    public func setFont(_ settings: FontSettings, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> FontChange {
        try await write { connection in
            guard let claim = try Self.claimEventID(of: profile, creating: Self.createsProfile(precondition), touchingPreferences: true,
                                                    in: connection),
                  let slots = try Self.readSlots([WellKnownKey.sliderValue, WellKnownKey.fontSize], of: profile, in: connection)
            else { throw StoreError.preconditionFailed(current: nil) }
            let before = FontState(profile: profile, slider: slots[0], fontSize: slots[1])
            if let precondition, !precondition.admits(before.version) {
                throw StoreError.preconditionFailed(current: before.version)
            }
            try connection.query("""
                INSERT INTO preferences (profile, key, value, version) VALUES ($1, $2, $3, $6), ($1, $4, $5, $6)
                ON CONFLICT (profile, key) DO UPDATE SET value = excluded.value, version = excluded.version
                """, .text(profile.rawValue),
                .text(WellKnownKey.sliderValue.rawValue), .text(JSONValue.number(settings.sliderValue).jsonText),
                .text(WellKnownKey.fontSize.rawValue), .text(JSONValue.number(settings.fontSize).jsonText),
                .integer(claim.eventID))
            let state = FontState(profile: profile, settings: settings, version: Version(claim.eventID))
            // Exactly one refresh per accepted change (F-6), whatever the values were before.
            let logged = try Self.log(.refresh(state, changedKeys: [WellKnownKey.sliderValue, WellKnownKey.fontSize]),
                                      id: claim.eventID, for: profile, in: connection)
            return Written(FontChange(state: state, eventID: claim.eventID), event: logged)
        }
    }
}
