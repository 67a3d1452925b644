public import NavPrefsCore

/// Preferences in UserDefaults' two layers (semantics P-1..P-7): stored values over registered
/// defaults. A value's version is the id of the event that wrote it; a removal leaves a
/// tombstone with the removal's version, so the versions of views over several keys (the font
/// settings) never go back to one they had for other contents.
extension TransactionalStore {
    public func preferences(of profile: ProfileName) async throws(StoreError) -> PreferenceSnapshot {
        try await read { transaction in
            guard let versions = try transaction.firstRow(.profileVersions, .text(profile.rawValue)) else {
                throw StoreError.profileNotFound(profile)
            }
            var stored: [PreferenceKey: PreferenceSlot.Stored] = [:]
            for row in try transaction.rows(.storedPreferences, .text(profile.rawValue)) {
                let name = try row.text(0)
                guard let key = try? PreferenceKey(name) else { throw StoreError.corrupted(reason: "stored key '\(name)'") }
                stored[key] = PreferenceSlot.Stored(value: try Steps.parse(try row.text(1)), version: Version(try row.int64(2)))
            }
            return PreferenceSnapshot(profile: profile, stored: stored, registered: try Self.registeredDefaults(of: profile, in: transaction),
                                      defaultsVersion: Version(try versions.int64(0)), version: Version(try versions.int64(1)))
        }
    }

    public func preference(_ key: PreferenceKey, of profile: ProfileName) async throws(StoreError) -> PreferenceSlot {
        try await read(snapshot: false) { transaction in
            guard let slot = try Steps.readSlot(key, of: profile, in: transaction) else { throw StoreError.profileNotFound(profile) }
            return slot
        }
    }

    public func setPreference(_ value: JSONValue, for key: PreferenceKey, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> PreferenceChange {
        let stored = try Steps.storedValue(value, for: key)
        let limit = limits.maxPreferencesPerProfile
        return try await write { transaction in
            guard let claim = try transaction.claimEventID(of: profile, creating: Steps.createsProfile(precondition), touchingPreferences: true),
                  let before = try Steps.readSlot(key, of: profile, in: transaction)
            else { throw StoreError.preconditionFailed(current: nil) }
            try Steps.check(precondition, against: before.version)
            if before.stored == nil {
                let count = try transaction.firstRow(.countStoredPreferences, .text(profile.rawValue))?.int64(0) ?? 0
                guard count < limit else { throw StoreError.tooManyPreferences(limit: limit) }
            }
            try transaction.run(.upsertPreferences, .text(profile.rawValue), .texts([key.rawValue]), .texts([stored.jsonText]),
                                .integer(claim.eventID))
            let after = PreferenceSlot(key: key, stored: .init(value: stored, version: Version(claim.eventID)),
                                       registered: before.registered, defaultsVersion: before.defaultsVersion)
            let event = try Steps.event(forChangeOf: after, removed: false, profile: profile, in: transaction)
            let logged = try Steps.log(event, id: claim.eventID, for: profile, in: transaction)
            return WriteOutcome(PreferenceChange(slot: after, eventID: claim.eventID, created: before.source == .absent), events: [logged],
                                counterView: key == WellKnownKey.counter ? .committed(CounterState(profile: profile, slot: after))
                                    : .profileExists(profile))
        }
    }

    public func removePreference(_ key: PreferenceKey, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> PreferenceChange {
        let kept = limits.keptTombstones
        return try await write { transaction in
            guard let claim = try transaction.claimEventID(of: profile, creating: false, touchingPreferences: true),
                  let before = try Steps.readSlot(key, of: profile, in: transaction)
            else { throw precondition == nil ? StoreError.profileNotFound(profile) : StoreError.preconditionFailed(current: nil) }
            try Steps.check(precondition, against: before.version)
            guard before.stored != nil else { throw StoreError.preferenceNotStored(key) }
            // Old tombstones of keys no view combines are pruned: removals cannot grow a profile without bound.
            try transaction.run(.tombstonePreferences, .text(profile.rawValue), .texts([key.rawValue]), .integer(claim.eventID))
            try transaction.run(.pruneTombstones, .text(profile.rawValue), .integer(Int64(kept)))
            let after = PreferenceSlot(key: key, stored: nil, removedAt: Version(claim.eventID), registered: before.registered,
                                       defaultsVersion: before.defaultsVersion)
            let event = try Steps.event(forChangeOf: after, removed: true, profile: profile, version: Version(claim.eventID),
                                        in: transaction)
            let logged = try Steps.log(event, id: claim.eventID, for: profile, in: transaction)
            return WriteOutcome(PreferenceChange(slot: after, eventID: claim.eventID), events: [logged],
                                counterView: key == WellKnownKey.counter ? .committed(CounterState(profile: profile, slot: after)) : nil)
        }
    }

    // MARK: Registered defaults (register(defaults:)), kept with the profile

    public func defaults(of profile: ProfileName) async throws(StoreError) -> DefaultsState {
        try await read { transaction in
            guard let versions = try transaction.firstRow(.profileVersions, .text(profile.rawValue)) else {
                throw StoreError.profileNotFound(profile)
            }
            return DefaultsState(profile: profile, values: try Self.registeredDefaults(of: profile, in: transaction),
                                 version: Version(try versions.int64(0)))
        }
    }

    public func setDefaults(_ defaults: JSONObject, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> DefaultsChange {
        var values = JSONObject()
        for member in defaults {
            guard let key = try? PreferenceKey(member.key) else { throw .internal(reason: "an invalid key reached the store: \(member.key)") }
            // Defaults of well-known keys must keep their views working too.
            values[member.key] = try Steps.storedValue(member.value, for: key)
        }
        return try await write { [values] transaction in
            guard let claim = try transaction.claimEventID(of: profile, creating: Steps.createsProfile(precondition), touchingPreferences: true)
            else { throw StoreError.preconditionFailed(current: nil) }
            try Steps.check(precondition, against: claim.defaultsVersion)
            try transaction.run(.deleteDefaults, .text(profile.rawValue))
            if !values.isEmpty {
                try transaction.run(.insertDefaults, .text(profile.rawValue), .texts(values.keys), .texts(values.map(\.value.jsonText)))
            }
            try transaction.run(.setDefaultsVersion, .text(profile.rawValue), .integer(claim.eventID))
            let state = DefaultsState(profile: profile, values: values, version: Version(claim.eventID))
            let logged = try Steps.log(.defaults(profile, values, version: state.version), id: claim.eventID, for: profile, in: transaction)
            // The counter may read its default now (or no longer): caches read it afresh.
            return WriteOutcome(DefaultsChange(state: state, eventID: claim.eventID), events: [logged], counterView: .invalidated(profile))
        }
    }

    /// The registered defaults of `profile`, in the order they were registered.
    static func registeredDefaults(of profile: ProfileName, in transaction: any StoreTransaction) throws -> JSONObject {
        JSONObject(try transaction.rows(.registeredDefaults, .text(profile.rawValue)).map { row in
            (try row.text(0), try Steps.parse(try row.text(1)))
        })
    }
}
