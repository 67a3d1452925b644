public import NavPrefsCore

/// One consistent read of a whole profile: the read a client starts from.
extension StoreRead where Value == ProfileState {
    /// ``Store/state(of:)`` as a value.
    public static func state(of profile: ProfileName) -> StoreRead {
        // One read transaction: SQLite's WAL snapshot, PostgreSQL's REPEATABLE READ. Every write
        // moves the profile's last event id in the transaction that makes it, so the id read
        // here is exactly the newest change the rest of the read includes.
        StoreRead(snapshot: true) { transaction in
            let bounds = try TransactionSteps.eventLogBounds(of: profile, in: transaction)
            let preferences = try PreferenceSteps.snapshot(of: profile, in: transaction)
            let wellKnown = [WellKnownKey.counter, WellKnownKey.sliderValue, WellKnownKey.fontSize]
            var keys = Set(preferences.stored.keys).union(wellKnown)
            for name in preferences.registered.keys {
                if let key = try? PreferenceKey(name) { keys.insert(key) }
            }
            let ordered = keys.sorted { $0.rawValue < $1.rawValue }
            let slots = try TransactionSteps.readSlots(ordered, of: profile, in: transaction) ?? ordered.map(TransactionSteps.emptySlot)
            var byKey: [PreferenceKey: PreferenceSlot] = [:]
            for slot in slots { byKey[slot.key] = slot }
            let slot = { (key: PreferenceKey) in byKey[key] ?? TransactionSteps.emptySlot(key) }
            let (slider, size) = (slot(WellKnownKey.sliderValue), slot(WellKnownKey.fontSize))
            return ProfileState(
                profile: profile, lastEventID: bounds.latest, preferences: preferences,
                slots: slots.filter { $0.value != nil },
                counter: CounterState(profile: profile, slot: slot(WellKnownKey.counter)),
                font: FontState(profile: profile, slider: slider, fontSize: size),
                sessions: try SessionSteps.summaries(of: profile, in: transaction),
                counterChange: slot(WellKnownKey.counter).lastChange,
                fontChange: slider.viewVersion >= size.viewVersion ? slider.lastChange : size.lastChange)
        }
    }
}
