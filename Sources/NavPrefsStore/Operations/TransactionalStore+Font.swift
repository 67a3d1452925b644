public import NavPrefsCore

/// The font view's two keys, slider first (the order of every statement and slot here).
private let fontKeys = [WellKnownKey.sliderValue, WellKnownKey.fontSize]

/// The font settings of seed 001 (semantics F-1..F-7): a view over `sliderValuekey` and
/// `fontSizekey`, both written by one transaction that logs exactly one `refresh`.
extension StoreWrite where Value == FontChange {
    /// ``Store/setFont(_:of:if:)`` as a value.
    public static func font(_ settings: FontSettings, of profile: ProfileName, if precondition: WritePrecondition?) -> StoreWrite {
        StoreWrite(of: profile, growsStorage: false, boundedWork: true) { transaction, _ in
            let (claim, _) = try claimFontView(of: profile, if: precondition, in: transaction)
            try transaction.run(.upsertPreferences, .text(profile.rawValue), .texts(fontKeys.map(\.rawValue)),
                                .texts([JSONValue.number(settings.sliderValue).jsonText, JSONValue.number(settings.fontSize).jsonText]),
                                .integer(claim.eventID), transaction.authorValue)
            let state = FontState(profile: profile, settings: settings, version: Version(claim.eventID))
            // Exactly one refresh per accepted change (F-6), whatever the values were before.
            let logged = try TransactionSteps.log(.refresh(state, changedKeys: fontKeys), id: claim.eventID, for: profile, in: transaction)
            return WriteOutcome(FontChange(state: state, eventID: claim.eventID), events: [logged], counterView: .profileExists(profile))
        }
    }

    /// Both font keys' stored values removed in one transaction (`removeObject(forKey:)` for
    /// each: a registered default shows again, P-6), logging exactly one `refresh` that names
    /// both as removed. Like a slider change (F-6), an accepted reset logs its refresh whatever
    /// the keys held before, so every screen re-reads what it shows: the seed's view then reads
    /// slider 0 and size 17 (F-3, F-5).
    public static func resetFont(of profile: ProfileName, if precondition: WritePrecondition?) -> StoreWrite {
        StoreWrite(of: profile, growsStorage: false, boundedWork: true) { transaction, limits in
            let (claim, before) = try claimFontView(of: profile, if: precondition, in: transaction)
            try transaction.run(.tombstonePreferences, .text(profile.rawValue), .texts(fontKeys.map(\.rawValue)), .integer(claim.eventID),
                                transaction.authorValue)
            try transaction.run(.pruneTombstones, .text(profile.rawValue), .integer(Int64(limits.keptTombstones)))
            let after = before.map { slot in
                PreferenceSlot(key: slot.key, stored: nil, removedAt: Version(claim.eventID), registered: slot.registered,
                               defaultsVersion: slot.defaultsVersion)
            }
            let state = FontState(profile: profile, slider: after[0], fontSize: after[1])
            let logged = try TransactionSteps.log(.refresh(state, changedKeys: fontKeys, removedKeys: fontKeys), id: claim.eventID,
                                                  for: profile, in: transaction)
            return WriteOutcome(FontChange(state: state, eventID: claim.eventID), events: [logged], counterView: .profileExists(profile))
        }
    }

    /// A font write's start: the profile's next event id claimed (created if new, which locks
    /// it), both keys' slots read after the claim, and `precondition` checked against the view.
    private static func claimFontView(of profile: ProfileName, if precondition: WritePrecondition?, in transaction: any StoreTransaction)
        throws -> (EventClaim, [PreferenceSlot]) {
        guard let claim = try transaction.claimEventID(of: profile, creating: true, touchingPreferences: true),
              let slots = try TransactionSteps.readSlots(fontKeys, of: profile, in: transaction)
        else { throw StoreError.internal(reason: "a profile created in this transaction is missing") }
        try TransactionSteps.checkView(precondition, against: FontState(profile: profile, slider: slots[0], fontSize: slots[1]).version)
        return (claim, slots)
    }
}

extension StoreRead where Value == FontState {
    /// ``Store/font(of:)`` as a value: both keys in one statement.
    public static func font(of profile: ProfileName) -> StoreRead {
        StoreRead(snapshot: false) { transaction in
            let slots = try TransactionSteps.readSlots(fontKeys, of: profile, in: transaction) ?? fontKeys.map(TransactionSteps.emptySlot)
            return FontState(profile: profile, slider: slots[0], fontSize: slots[1])
        }
    }
}
