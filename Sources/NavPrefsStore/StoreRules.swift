import NavPrefsCore
import NavPrefsJSON

/// What every store decides the same way, whatever its SQL: which event a change logs, why a
/// guarded counter statement changed nothing, how defaults are stored, and how a session edit
/// is checked and applied. Each store reads rows its own way and hands them in.
enum StoreRules {
    /// The event a change of `slot` logs: the event of the view the key belongs to. A font key's
    /// refresh carries both font keys, so the other one is read through `readSlot`.
    static func event(
        forChangeOf slot: PreferenceSlot, removed: Bool, profile: ProfileName, version: Version? = nil,
        readSlot: (PreferenceKey) throws -> PreferenceSlot?
    ) throws -> ChangeEvent {
        let version = version ?? slot.version ?? .initial
        switch WellKnownKey.view(of: slot.key) {
        case .counter:
            return .counter(operation: removed ? "remove" : "set", CounterState(profile: profile, slot: slot))
        case .font:
            let other = slot.key == WellKnownKey.fontSize ? WellKnownKey.sliderValue : WellKnownKey.fontSize
            guard let otherSlot = try readSlot(other) else { throw StoreError.profileNotFound(profile) }
            let (slider, size) = slot.key == WellKnownKey.sliderValue ? (slot, otherSlot) : (otherSlot, slot)
            return .refresh(FontState(profile: profile, slider: slider, fontSize: size), changedKeys: [slot.key])
        case .none:
            return .preference(profile, key: slot.key, value: removed ? nil : slot.value, visible: slot.value, version: version)
        }
    }

    /// Why a guarded counter statement changed nothing, given the counter's slot as read in the
    /// same transaction (`nil`: the profile has none).
    static func counterRefusal(
        _ operation: CounterOperation, profile: ProfileName, precondition: WritePrecondition?, slot: PreferenceSlot?
    ) -> StoreError {
        guard let slot else { return .preconditionFailed(current: nil) }
        let current = CounterState(profile: profile, slot: slot)
        if let precondition, !precondition.admits(current.version) {
            return .preconditionFailed(current: current.version)
        }
        return .counter(.outOfRange(current: current.counter.value, operation: operation))
    }

    /// `value` as stored under `key`: well-known keys keep their views working (`numIndex` an integer...).
    static func storedValue(_ value: JSONValue, for key: PreferenceKey) throws(StoreError) -> JSONValue {
        do {
            return try WellKnownKey.storedForm(of: value, for: key)
        } catch {
            throw .invalidValue(error)
        }
    }

    /// Registered defaults as stored: defaults of well-known keys must keep their views working too.
    static func storedDefaults(_ defaults: JSONObject) throws(StoreError) -> JSONObject {
        var values = JSONObject()
        for member in defaults {
            guard let key = try? PreferenceKey(member.key) else {
                throw .internal(reason: "an invalid key reached the store: \(member.key)")
            }
            values[member.key] = try storedValue(member.value, for: key)
        }
        return values
    }

    /// Checks `precondition` against the stored session (`nil`: there is none) and runs `edit`
    /// on a copy: the edited session and the edit's outcome, or the refusal as a ``StoreError``.
    static func edit<Result>(
        _ stored: SessionState?, id: SessionID, if precondition: WritePrecondition?,
        _ edit: (inout NavigationSession) throws(NavigationError) -> SessionEdit<Result>
    ) throws(StoreError) -> (before: SessionState, after: NavigationSession, outcome: SessionEdit<Result>) {
        guard let before = stored else {
            // A condition on a session that does not exist fails as a condition (RFC 9110 §13.1.1).
            if precondition != nil { throw .preconditionFailed(current: nil) }
            throw .sessionNotFound(id)
        }
        if let precondition, !precondition.admits(before.version) {
            throw .preconditionFailed(current: before.version)
        }
        var session = before.session
        do throws(NavigationError) {
            let outcome = try edit(&session)
            return (before, session, outcome)
        } catch {
            throw .navigation(error)
        }
    }
}
