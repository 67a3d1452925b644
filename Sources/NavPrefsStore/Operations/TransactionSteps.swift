package import NavPrefsCore
import NavPrefsJSON

/// The steps operations share, over any dialect's transaction: reading slots, logging events,
/// checking preconditions, and deciding which event a change logs.
package enum TransactionSteps {
    /// The bounds of a profile's event log as one statement reads them (a profile that does not
    /// exist: earliest 1, latest 0).
    package static func eventLogBounds(of profile: ProfileName, in transaction: any StoreTransaction) throws -> EventLogBounds {
        let row = try transaction.firstRow(.eventLogBounds, .text(profile.rawValue))
        let latest = try row?.optionalInt64(0) ?? 0
        return EventLogBounds(earliest: try row?.optionalInt64(1) ?? latest + 1, latest: latest)
    }

    /// `keys` of `profile` in both layers, in the order asked, read by one statement (one
    /// snapshot); `nil` when the profile does not exist.
    package static func readSlots(_ keys: [PreferenceKey], of profile: ProfileName, in transaction: any StoreTransaction) throws
        -> [PreferenceSlot]? {
        let rows = try transaction.rows(.readSlots, .text(profile.rawValue), .texts(keys.map(\.rawValue)))
        guard rows.count == keys.count else { return nil }
        return try zip(keys, rows).map { key, row in
            let version = try row.optionalInt64(1)
            let stored = try row.optionalText(0).map { PreferenceSlot.Stored(value: try parse($0), version: Version(version ?? 0)) }
            return PreferenceSlot(key: key, stored: stored, removedAt: stored == nil ? version.map(Version.init) : nil,
                                  registered: try row.optionalText(2).map(parse), defaultsVersion: Version(try row.int64(3)),
                                  storedChange: try lastChange(row, at: 4), defaultsChange: try lastChange(row, at: 6))
        }
    }

    /// The change recorded in columns `column` (when, milliseconds) and `column + 1` (the
    /// author's JSON); `nil` when the time is NULL (written before authors were recorded).
    package static func lastChange(_ row: StoreRow, at column: Int) throws -> LastChange? {
        guard let at = try row.optionalInt64(column) else { return nil }
        return LastChange(at: at, author: try row.optionalText(column + 1).map(author))
    }

    /// An author as the store keeps it. Only the store writes these, so a failure means damaged data.
    package static func author(_ text: String) throws(StoreError) -> ChangeAuthor {
        guard let author = ChangeAuthor(try parse(text)) else { throw .corrupted(reason: "a stored author is not one") }
        return author
    }

    /// A key with neither a stored value nor a default, of a profile nobody wrote to.
    package static func emptySlot(_ key: PreferenceKey) -> PreferenceSlot {
        PreferenceSlot(key: key, stored: nil, registered: nil, defaultsVersion: .initial)
    }

    /// One key of `profile` in both layers; `nil` when the profile does not exist.
    package static func readSlot(_ key: PreferenceKey, of profile: ProfileName, in transaction: any StoreTransaction) throws -> PreferenceSlot? {
        try readSlots([key], of: profile, in: transaction)?.first
    }

    /// Appends `event` to the profile's log under `id` (from the claim), with the write's author
    /// in its data and the history it belongs to (``ChangeEvent/subject``); returns the entry,
    /// for the feed once the transaction commits.
    package static func log(_ event: ChangeEvent, id: Int64, for profile: ProfileName, in transaction: any StoreTransaction) throws
        -> LoggedEvent {
        let event = transaction.author.map { event.authored(by: $0, writtenAs: transaction.authorText) } ?? event
        let data = event.data
        let row = try transaction.firstRow(.appendEvent, .text(profile.rawValue), .integer(id), .text(event.type.rawValue), .text(data),
                                           event.subject.map(StatementValue.text) ?? .null)
        return LoggedEvent(id: id, profile: profile, type: event.type, data: data, timestamp: try row?.int64(0) ?? 0)
    }

    /// A stored JSON text. Only the store writes these, so a failure means damaged data.
    package static func parse(_ text: String) throws(StoreError) -> JSONValue {
        do {
            return try JSONValue.parse(text)
        } catch {
            throw .corrupted(reason: "a stored value is not JSON: \(error)")
        }
    }

    /// Logged events of `profile` after `id`, oldest first, at most `limit` and, with `maxBytes`,
    /// at most that many bytes of data (the first whatever its size), read by one statement.
    package static func events(of profile: ProfileName, after id: Int64, limit: Int, maxBytes: Int?,
                               in transaction: any StoreTransaction) throws -> [LoggedEvent] {
        let rows = if let maxBytes {
            try transaction.rows(.eventsAfterWithin, .text(profile.rawValue), .integer(id), .integer(Int64(limit)), .integer(Int64(maxBytes)))
        } else {
            try transaction.rows(.eventsAfter, .text(profile.rawValue), .integer(id), .integer(Int64(limit)))
        }
        return try rows.map { row in try loggedEvent(row, of: profile) }
    }

    /// A logged event read back from the log.
    package static func loggedEvent(_ row: StoreRow, of profile: ProfileName) throws -> LoggedEvent {
        LoggedEvent(id: try row.int64(0), profile: profile, type: EventType(rawValue: try row.text(1)) ?? .reset,
                    data: try row.text(2), timestamp: try row.int64(3))
    }

    /// Refuses a write whose precondition does not admit `current` (`nil`: the resource has no
    /// representation, as a preference key with no value).
    package static func check(_ precondition: WritePrecondition?, against current: Version?) throws(StoreError) {
        if let precondition, !precondition.admits(current) { throw .preconditionFailed(current: current) }
    }

    /// Refuses a write of a view that every profile has (the counter, the font settings, the
    /// defaults, the whole set of preferences) whose precondition does not admit `version`: such
    /// a view always has a representation (a profile nobody wrote to reads version 0), so
    /// `If-Match: "0"` and `*` admit a fresh one, and `If-None-Match: *` admits only a view never
    /// written (version 0): "create, never overwrite".
    package static func checkView(_ precondition: WritePrecondition?, against version: Version) throws(StoreError) {
        guard let precondition, !admitsView(precondition, version) else { return }
        throw .preconditionFailed(current: version)
    }

    package static func admitsView(_ precondition: WritePrecondition, _ version: Version) -> Bool {
        precondition == .absent ? version == .initial : precondition.admits(version)
    }

    /// The event a change of `slot` logs: the event of the view the key belongs to. A font key's
    /// refresh carries both font keys, so the other one is read in the same transaction.
    package static func event(forChangeOf slot: PreferenceSlot, removed: Bool, profile: ProfileName, version: Version? = nil,
                      in transaction: any StoreTransaction) throws -> ChangeEvent {
        let version = version ?? slot.version ?? .initial
        switch WellKnownKey.view(of: slot.key) {
        case .counter:
            return .counter(operation: removed ? "remove" : "set", CounterState(profile: profile, slot: slot))
        case .font:
            let other = slot.key == WellKnownKey.fontSize ? WellKnownKey.sliderValue : WellKnownKey.fontSize
            guard let otherSlot = try readSlot(other, of: profile, in: transaction) else { throw StoreError.profileNotFound(profile) }
            let (slider, size) = slot.key == WellKnownKey.sliderValue ? (slot, otherSlot) : (otherSlot, slot)
            return .refresh(FontState(profile: profile, slider: slider, fontSize: size), changedKeys: [slot.key],
                            removedKeys: removed ? [slot.key] : [])
        case .none:
            return .preference(profile, key: slot.key, value: removed ? nil : slot.value, visible: slot.value, version: version)
        }
    }

    /// `value` as stored under `key`: well-known keys keep their views working (`numIndex` an integer...).
    package static func storedValue(_ value: JSONValue, for key: PreferenceKey) throws(StoreError) -> JSONValue {
        do {
            return try WellKnownKey.storedForm(of: value, for: key)
        } catch {
            throw .invalidValue(error)
        }
    }
}
