public import NavPrefsCore

/// Preferences in UserDefaults' two layers (semantics P-1..P-7): stored values over registered
/// defaults. A value's version is the id of the event that wrote it; a removal leaves a
/// tombstone with the removal's version, so the versions of views over several keys (the font
/// settings) never go back to one they had for other contents. A profile nobody wrote to reads
/// as a fresh suite: no values, no defaults, version 0.
extension StoreWrite where Value == PreferenceChange {
    /// ``Store/setPreference(_:for:of:if:)`` as a value.
    /// - Throws: ``StoreError/invalidValue(_:)`` at once, for a value a well-known key's view cannot take.
    public static func setPreference(_ value: JSONValue, for key: PreferenceKey, of profile: ProfileName,
                                     if precondition: WritePrecondition?) throws(StoreError) -> StoreWrite {
        let stored = try TransactionSteps.storedValue(value, for: key)
        // Encoded here, where the write is made (off the event loop for a large body), not on
        // the store's one writer.
        let text = stored.jsonText
        return StoreWrite(of: profile, boundedWork: true) { transaction, limits in
            let limit = limits.maxPreferencesPerProfile
            guard let claim = try transaction.claimEventID(of: profile, creating: true, touchingPreferences: true),
                  let before = try TransactionSteps.readSlot(key, of: profile, in: transaction)
            else { throw StoreError.internal(reason: "a profile created in this transaction is missing") }
            try TransactionSteps.check(precondition, against: before.version)
            if before.stored == nil { try PreferenceSteps.checkRoom(for: 1, of: profile, limit: limit, in: transaction) }
            let after = try PreferenceSteps.store(stored, text: text, under: key, before: before, id: claim.eventID, of: profile,
                                                  in: transaction)
            return WriteOutcome(PreferenceChange(slot: after.slot, eventID: claim.eventID, created: before.source == .absent),
                                events: [after.event], counterView: PreferenceSteps.counterView(afterChanging: [after.slot], of: profile))
        }
    }

    /// ``Store/removePreference(_:of:if:)`` as a value.
    public static func removePreference(_ key: PreferenceKey, of profile: ProfileName, if precondition: WritePrecondition?)
        -> StoreWrite {
        StoreWrite(of: profile, growsStorage: false, boundedWork: true) { transaction, limits in
            let kept = limits.keptTombstones
            // Removing what is not stored changes nothing and takes no event id (removeObject(forKey:)).
            let seen = try TransactionSteps.readSlot(key, of: profile, in: transaction) ?? TransactionSteps.emptySlot(key)
            try TransactionSteps.check(precondition, against: seen.version)
            guard seen.stored != nil else { return WriteOutcome(PreferenceChange(slot: seen, eventID: nil)) }
            // Something to remove: lock the profile, then read again (another write may have come first).
            guard let claim = try transaction.claimEventID(of: profile, creating: false, touchingPreferences: true),
                  let before = try TransactionSteps.readSlot(key, of: profile, in: transaction)
            else { throw StoreError.preconditionFailed(current: nil) }
            try TransactionSteps.check(precondition, against: before.version)
            guard before.stored != nil else { throw StoreError.preconditionFailed(current: before.version) }
            let after = try PreferenceSteps.remove(key, before: before, id: claim.eventID, kept: kept, of: profile, in: transaction)
            return WriteOutcome(PreferenceChange(slot: after.slot, eventID: claim.eventID), events: [after.event],
                                counterView: PreferenceSteps.counterView(afterChanging: [after.slot], of: profile))
        }
    }
}

extension StoreWrite where Value == PreferencesChange {
    /// ``Store/updatePreferences(_:of:if:)`` as a value. Each update is a merge patch of its key's
    /// value (RFC 7396), merged in the transaction into the value readers see (stored, else
    /// registered), so that no other write comes between the value read and the merge.
    /// - Parameter maxValueBytes: the largest merged value, as compact JSON: merging can grow a
    ///   value past what one patch may carry, so the result is checked too.
    /// - Throws: ``StoreError/invalidValue(_:)`` at once, for a value a well-known key's view
    ///   cannot take (a merge leaves such a value as it is: an object patch makes an object, which
    ///   no well-known key takes, and any other patch is the value itself).
    public static func updatePreferences(_ changes: [PreferenceUpdate], of profile: ProfileName, if precondition: WritePrecondition?,
                                         maxValueBytes: Int = PreferenceUpdate.defaultMaxValueBytes)
        throws(StoreError) -> StoreWrite {
        // A value that is no object is stored as it is (a merge replaces with it): its text is
        // encoded here, where the write is made (off the event loop for a large body), not on
        // the store's one writer. An object may merge into what the key holds, known there only.
        var updates: [(key: PreferenceKey, stored: JSONValue?, text: String?)] = []
        for change in changes {
            let stored = try change.value.map { value throws(StoreError) in try TransactionSteps.storedValue(value, for: change.key) }
            let text: String? = switch stored {
            case .object?, nil: nil
            case let value?: value.jsonText
            }
            updates.append((change.key, stored, text))
        }
        return StoreWrite(of: profile) { [updates] transaction, limits in
            let (limit, kept) = (limits.maxPreferencesPerProfile, limits.keptTombstones)
            // The precondition is on the whole set's version (a view every profile has: 0 when
            // nobody wrote to it), read under the profile's lock.
            let versions = try transaction.firstRow(.profileVersionsForUpdate, .text(profile.rawValue))
            let versionBefore = try versions.map { Version(try $0.int64(1)) } ?? .initial
            try TransactionSteps.checkView(precondition, against: versionBefore)
            let creating = updates.contains { $0.stored != nil }
            var before: [PreferenceKey: PreferenceSlot] = [:]
            for slot in try TransactionSteps.readSlots(updates.map(\.key), of: profile, in: transaction) ?? [] { before[slot.key] = slot }
            let added = Set(updates.filter { $0.stored != nil && before[$0.key]?.stored == nil }.map(\.key))
            if !added.isEmpty { try PreferenceSteps.checkRoom(for: added.count, of: profile, limit: limit, in: transaction) }
            var events: [LoggedEvent] = [], changed: [PreferenceSlot] = [], changes: [PreferencesChange.KeyChange] = []
            for update in updates {
                let slot = before[update.key] ?? TransactionSteps.emptySlot(update.key)
                let merged = try update.stored.map { patch throws(StoreError) in
                    try PreferenceSteps.merge(patch, into: slot.value, of: update.key, maxValueBytes: maxValueBytes)
                }
                guard merged != nil || slot.stored != nil else { continue }  // removing nothing
                guard let claim = try transaction.claimEventID(of: profile, creating: creating, touchingPreferences: true) else {
                    throw StoreError.preconditionFailed(current: nil)
                }
                let after: (slot: PreferenceSlot, event: LoggedEvent), kind: PreferencesChange.KeyChange.Kind
                if let value = merged {
                    // An object merged into the object readers saw: the change is the patch, which
                    // may be a few bytes of a value of 64 KiB.
                    let patched = PreferenceSteps.mergedInto(slot, patch: update.stored)
                    let stored = try PreferenceSteps.store(value, text: update.text, under: update.key, before: slot, id: claim.eventID,
                                                           patched: patched, of: profile, in: transaction)
                    after = (stored.slot, stored.event)
                    kind = patched.map { .merged(patch: $0.patch, from: $0.from) } ?? .set(json: stored.text)
                } else {
                    after = try PreferenceSteps.remove(update.key, before: slot, id: claim.eventID, kept: kept, of: profile, in: transaction)
                    kind = .removed(after.slot.source)
                }
                before[update.key] = after.slot
                events.append(after.event)
                changed.append(after.slot)
                changes.append(PreferencesChange.KeyChange(key: update.key, kind: kind, version: Version(claim.eventID)))
            }
            let version = events.last.map { Version($0.id) } ?? versionBefore
            return WriteOutcome(PreferencesChange(profile: profile, changes: changes, version: version),
                                events: events, counterView: changed.isEmpty ? nil : PreferenceSteps.counterView(afterChanging: changed, of: profile))
        }
    }

    /// `removePersistentDomain(forName:)`: every value stored in the profile removed in one
    /// transaction, as a patch of `null` for each stored key removes them
    /// (``updatePreferences(_:of:if:maxValueBytes:)``): each key logs its own event (`counter` for
    /// `numIndex`, `refresh` for a font key), oldest value first (the keys of one write by name),
    /// all committed together. The registered defaults stay, as the call leaves the registration
    /// domain alone, so a key with one reads it again (P-6) and the counter and font read what a
    /// fresh install reads. With nothing stored nothing changes and nothing is logged. The keys are
    /// read with the profile locked, so a value written just before is removed too. Its work grows with the profile (at
    /// most ``StoreLimits/maxPreferencesPerProfile`` keys, 1,000 by default: a full PATCH's work),
    /// so it runs on the writer, not in the loop's turn.
    public static func removeAllPreferences(of profile: ProfileName, if precondition: WritePrecondition?) -> StoreWrite {
        StoreWrite(of: profile, growsStorage: false) { transaction, limits in
            _ = try transaction.firstRow(.profileVersionsForUpdate, .text(profile.rawValue))
            var stored: [(key: PreferenceKey, version: Int64)] = []
            for row in try transaction.rows(.storedPreferences, .text(profile.rawValue)) {
                let name = try row.text(0)
                guard let key = try? PreferenceKey(name) else { throw StoreError.corrupted(reason: "stored key '\(name.prefix(80))'") }
                stored.append((key, try row.int64(2)))
            }
            // Oldest value first; the keys one write set (the font's two) by name.
            let updates = stored.sorted { ($0.version, $0.key.rawValue) < ($1.version, $1.key.rawValue) }
                .map { PreferenceUpdate(key: $0.key, value: nil) }
            return try updatePreferences(updates, of: profile, if: precondition).steps(transaction, limits)
        }
    }
}

/// The steps the preference writes and reads share.
enum PreferenceSteps {
    /// `patch` merged into `current` (RFC 7396), refused when the result outgrows `maxValueBytes`.
    /// Never `nil`: a null patch is a removal and never gets here, and a patch that is no object
    /// is the new value itself.
    static func merge(_ patch: JSONValue, into current: JSONValue?, of key: PreferenceKey, maxValueBytes: Int)
        throws(StoreError) -> JSONValue {
        guard case .object = patch else { return patch }
        let merged = MergePatch.apply(patch, to: current) ?? .object(JSONObject())
        let size = merged.jsonText.utf8.count
        guard size <= maxValueBytes else { throw .valueTooLarge(key: key, bytes: size, limit: maxValueBytes) }
        return merged
    }

    /// Whether `patch` merges into what `slot` reads (an object patch into an object, RFC 7396)
    /// rather than replacing it: then the patch and the version it applies to, which is what
    /// such a change logs.
    static func mergedInto(_ slot: PreferenceSlot, patch: JSONValue?) -> (patch: JSONValue, from: Version)? {
        guard case .object? = patch, case .object? = slot.value, let patch, let from = slot.version else { return nil }
        return (patch, from)
    }

    /// Stores `value` under `key` with version `id` and logs the event of the key's view: the
    /// value, or the patch that made it when `patched` (``mergedInto(_:patch:)``). `text` is the
    /// value's JSON text when the caller has it already. Returns the text as stored too.
    static func store(_ value: JSONValue, text: String? = nil, under key: PreferenceKey, before: PreferenceSlot, id: Int64,
                      patched: (patch: JSONValue, from: Version)? = nil, of profile: ProfileName,
                      in transaction: any StoreTransaction) throws -> (slot: PreferenceSlot, event: LoggedEvent, text: String) {
        let text = text ?? value.jsonText
        try transaction.run(.upsertPreference, .text(profile.rawValue), .text(key.rawValue), .text(text), .integer(id),
                            transaction.authorValue)
        let after = PreferenceSlot(key: key, stored: .init(value: value, version: Version(id)),
                                   registered: before.registered, defaultsVersion: before.defaultsVersion)
        let event = if let patched, WellKnownKey.view(of: key) == .none {
            ChangeEvent.mergedPreference(profile, key: key, patch: patched.patch, from: patched.from, version: Version(id))
        } else {
            try TransactionSteps.event(forChangeOf: after, removed: false, profile: profile, in: transaction)
        }
        return (after, try TransactionSteps.log(event, id: id, for: profile, in: transaction), text)
    }

    /// Leaves a tombstone with version `id` under `key` and logs the event of the key's view.
    /// Old tombstones of keys no view combines are pruned: removals cannot grow a profile without bound.
    static func remove(_ key: PreferenceKey, before: PreferenceSlot, id: Int64, kept: Int, of profile: ProfileName,
                               in transaction: any StoreTransaction) throws -> (slot: PreferenceSlot, event: LoggedEvent) {
        try transaction.run(.tombstonePreferences, .text(profile.rawValue), .texts([key.rawValue]), .integer(id), transaction.authorValue)
        try transaction.run(.pruneTombstones, .text(profile.rawValue), .integer(Int64(kept)))
        let after = PreferenceSlot(key: key, stored: nil, removedAt: Version(id), registered: before.registered,
                                   defaultsVersion: before.defaultsVersion)
        let event = try TransactionSteps.event(forChangeOf: after, removed: true, profile: profile, version: Version(id), in: transaction)
        return (after, try TransactionSteps.log(event, id: id, for: profile, in: transaction))
    }

    /// Refuses a write that would take the profile beyond `limit` stored keys.
    static func checkRoom(for added: Int, of profile: ProfileName, limit: Int, in transaction: any StoreTransaction) throws {
        let count = try transaction.firstRow(.countStoredPreferences, .text(profile.rawValue))?.int64(0) ?? 0
        guard count + Int64(added) <= Int64(limit) else { throw StoreError.tooManyPreferences(limit: limit) }
    }

    /// What a write of `slots` did to the counter view: the counter's new state when `numIndex`
    /// changed, else only that the profile exists now.
    static func counterView(afterChanging slots: [PreferenceSlot], of profile: ProfileName) -> CounterViewChange {
        guard let counter = slots.last(where: { $0.key == WellKnownKey.counter }) else { return .profileExists(profile) }
        return .committed(CounterState(profile: profile, slot: counter))
    }

    /// Every value and default of `profile` in one snapshot of the transaction.
    static func snapshot(of profile: ProfileName, in transaction: any StoreTransaction) throws -> PreferenceSnapshot {
        guard let versions = try transaction.firstRow(.profileVersions, .text(profile.rawValue)) else {
            return PreferenceSnapshot(profile: profile, stored: [:], registered: [:], defaultsVersion: .initial, version: .initial)
        }
        var stored: [PreferenceKey: PreferenceSlot.Stored] = [:]
        for row in try transaction.rows(.storedPreferences, .text(profile.rawValue)) {
            let name = try row.text(0)
            guard let key = try? PreferenceKey(name) else { throw StoreError.corrupted(reason: "stored key '\(name.prefix(80))'") }
            stored[key] = PreferenceSlot.Stored(value: try TransactionSteps.parse(try row.text(1)), version: Version(try row.int64(2)))
        }
        return PreferenceSnapshot(profile: profile, stored: stored, registered: try registeredDefaults(of: profile, in: transaction),
                                  defaultsVersion: Version(try versions.int64(0)), version: Version(try versions.int64(1)),
                                  defaultsChange: try TransactionSteps.lastChange(versions, at: 2))
    }

    /// The registered defaults of `profile`, in the order they were registered.
    static func registeredDefaults(of profile: ProfileName, in transaction: any StoreTransaction) throws -> JSONObject {
        JSONObject(try transaction.rows(.registeredDefaults, .text(profile.rawValue)).map { row in
            (try row.text(0), try TransactionSteps.parse(try row.text(1)))
        })
    }
}

// MARK: Registered defaults (register(defaults:)), kept with the profile

extension StoreRead where Value == PreferenceSnapshot {
    /// ``Store/preferences(of:)`` as a value: both layers from one snapshot.
    public static func preferences(of profile: ProfileName) -> StoreRead {
        StoreRead(snapshot: true) { transaction in try PreferenceSteps.snapshot(of: profile, in: transaction) }
    }
}

extension StoreRead where Value == PreferenceSlot {
    /// ``Store/preference(_:of:)`` as a value: one statement.
    public static func preference(_ key: PreferenceKey, of profile: ProfileName) -> StoreRead {
        StoreRead(snapshot: false) { transaction in
            try TransactionSteps.readSlot(key, of: profile, in: transaction) ?? TransactionSteps.emptySlot(key)
        }
    }
}

extension StoreRead where Value == DefaultsState {
    /// ``Store/defaults(of:)`` as a value: the defaults and the version they belong to, from one snapshot.
    public static func defaults(of profile: ProfileName) -> StoreRead {
        StoreRead(snapshot: true) { transaction in
            guard let versions = try transaction.firstRow(.profileVersions, .text(profile.rawValue)) else {
                return DefaultsState(profile: profile, values: [:], version: .initial)
            }
            return DefaultsState(profile: profile, values: try PreferenceSteps.registeredDefaults(of: profile, in: transaction),
                                 version: Version(try versions.int64(0)))
        }
    }
}

extension StoreWrite where Value == DefaultsChange {
    /// ``Store/setDefaults(_:merging:of:if:)`` as a value. Merging, each member is a merge patch
    /// (RFC 7396) of that key's registered default, merged in the transaction.
    /// - Parameter maxValueBytes: the largest merged default, as compact JSON (merging can grow
    ///   a default past what one patch may carry).
    /// - Throws: ``StoreError/invalidValue(_:)`` at once, for a default a well-known key's view cannot take.
    public static func setDefaults(_ defaults: JSONObject, merging: Bool, of profile: ProfileName, if precondition: WritePrecondition?,
                                   maxValueBytes: Int = PreferenceUpdate.defaultMaxValueBytes)
        throws(StoreError) -> StoreWrite {
        var values: [(key: PreferenceKey, value: JSONValue)] = []
        for member in defaults {
            guard let key = try? PreferenceKey(member.key) else { throw .internal(reason: "an invalid key reached the store") }
            // Defaults of well-known keys must keep their views working too; null (merging) removes.
            values.append((key, member.value == .null ? .null : try TransactionSteps.storedValue(member.value, for: key)))
        }
        return StoreWrite(of: profile) { [values] transaction, _ in
            guard let claim = try transaction.claimEventID(of: profile, creating: true, touchingPreferences: true) else {
                throw StoreError.internal(reason: "a profile created in this transaction is missing")
            }
            try TransactionSteps.checkView(precondition, against: claim.defaultsVersion)
            var registered = merging ? try PreferenceSteps.registeredDefaults(of: profile, in: transaction) : JSONObject()
            for member in values {
                let current = merging ? registered[member.key.rawValue] : nil
                registered[member.key.rawValue] = member.value == .null
                    ? nil : try PreferenceSteps.merge(member.value, into: current, of: member.key, maxValueBytes: maxValueBytes)
            }
            try transaction.run(.deleteDefaults, .text(profile.rawValue))
            if !registered.isEmpty {
                try transaction.run(.insertDefaults, .text(profile.rawValue), .texts(registered.keys),
                                    .texts(registered.map(\.value.jsonText)))
            }
            try transaction.run(.setDefaultsVersion, .text(profile.rawValue), .integer(claim.eventID), transaction.authorValue)
            let state = DefaultsState(profile: profile, values: registered, version: Version(claim.eventID))
            // A merge logs the keys it touched, a replacement the whole set it was sent.
            let event: ChangeEvent = merging
                ? .changedDefaults(profile, JSONObject(values.map { ($0.key.rawValue, registered[$0.key.rawValue] ?? .null) }), version: state.version)
                : .defaults(profile, registered, version: state.version)
            let logged = try TransactionSteps.log(event, id: claim.eventID, for: profile, in: transaction)
            // The counter may read its default now (or no longer): caches read it afresh.
            return WriteOutcome(DefaultsChange(state: state, eventID: claim.eventID), events: [logged], counterView: .invalidated(profile))
        }
    }
}
