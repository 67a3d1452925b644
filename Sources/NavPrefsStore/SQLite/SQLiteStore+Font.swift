public import NavPrefsCore
import NavPrefsJSON

extension SQLiteStore {
    public func font(of profile: ProfileName) async throws(StoreError) -> FontState {
        try await readers.read { connection in
            try connection.transaction {
                guard let slider = try Self.readSlot(WellKnownKey.sliderValue, of: profile, in: connection),
                      let size = try Self.readSlot(WellKnownKey.fontSize, of: profile, in: connection)
                else { throw StoreError.profileNotFound(profile) }
                return FontState(profile: profile, slider: slider, fontSize: size)
            }
        }
    }

    public func setFont(_ settings: FontSettings, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> FontChange {
        let cache = counters
        return try await writer.write { context in
            let connection = context.connection
            try Self.requireProfile(profile, for: precondition, in: context)
            guard let slider = try Self.readSlot(WellKnownKey.sliderValue, of: profile, in: connection),
                  let size = try Self.readSlot(WellKnownKey.fontSize, of: profile, in: connection)
            else { throw StoreError.preconditionFailed(current: nil) }
            let before = FontState(profile: profile, slider: slider, fontSize: size)
            if let precondition, !precondition.admits(before.version) {
                throw StoreError.preconditionFailed(current: before.version)
            }
            guard let eventID = try Self.nextEventID(of: profile, in: connection) else { throw StoreError.profileNotFound(profile) }
            for (key, value) in [(WellKnownKey.sliderValue, settings.sliderValue), (WellKnownKey.fontSize, settings.fontSize)] {
                try connection.run("""
                    INSERT INTO preferences (profile, key, value, version) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT (profile, key) DO UPDATE SET value = excluded.value, version = excluded.version
                    """, .text(profile.rawValue), .text(key.rawValue), .text(JSONValue.number(value).jsonText), .integer(eventID))
            }
            let state = FontState(profile: profile, settings: settings, version: Version(eventID))
            // Exactly one refresh per accepted change (F-6), whatever the values were before.
            let logged = try Self.log(.refresh(state, changedKeys: [WellKnownKey.sliderValue, WellKnownKey.fontSize]),
                                      id: eventID, for: profile, in: connection)
            return Committed(value: FontChange(state: state, eventID: eventID), events: [logged]) { context in
                context.knownProfiles.insert(profile.rawValue)
                cache.profileExists(profile)
            }
        }
    }
}
