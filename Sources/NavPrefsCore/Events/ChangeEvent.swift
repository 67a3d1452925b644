/// The kinds of change the event log records, as SSE event names.
public enum EventType: String, Sendable, CaseIterable {
    /// The seed's `doRefreshNotification`: font settings changed, screens should re-read.
    case refresh
    case counter
    case preference
    case navigation
    /// Not logged: sent to a subscriber whose position the log no longer covers (E-3).
    case reset
    /// Not logged: the last event of every stream when the server shuts down; reconnect.
    case shutdown
    /// Not logged: the last event of a stream whose token was revoked; do not reconnect with it.
    case revoked
}

/// A change as it is written to the event log, in the same transaction as the change itself.
public struct ChangeEvent: Sendable, Hashable {
    public let type: EventType
    /// The event's data, one JSON object.
    public let payload: JSONObject
    /// The payload's text when the constructor wrote it already (a counter's, on every write).
    private let text: String?

    public init(type: EventType, payload: JSONObject) {
        self.type = type
        self.payload = payload
        text = nil
    }

    private init(type: EventType, payload: JSONObject, text: String) {
        self.type = type
        self.payload = payload
        self.text = text
    }

    /// The payload as JSON text, as the log stores it.
    public var data: String { text ?? JSONValue.object(payload).jsonText }

    /// Equal when type and payload are (the text is only the payload written ahead).
    public static func == (left: ChangeEvent, right: ChangeEvent) -> Bool { left.type == right.type && left.payload == right.payload }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(payload)
    }

    /// The event with its author in its data (`"author"`, the last member), as the log keeps it.
    /// - Parameter authorText: `author`'s JSON text, when the caller wrote it already: then a
    ///   payload's text written ahead (a counter's, on every write) is extended with it rather
    ///   than the whole payload written again (about 7 µs of a counter write). The bytes are the
    ///   writer's: the author is a new last member (no event's payload names one before).
    public func authored(by author: ChangeAuthor, writtenAs authorText: String? = nil) -> ChangeEvent {
        var payload = self.payload
        let replacing = payload["author"] != nil
        payload["author"] = author.json
        guard let text, let authorText, !replacing, text.utf8.count > 2, text.utf8.last == UInt8(ascii: "}") else {
            return ChangeEvent(type: type, payload: payload)
        }
        // In bytes: String's dropLast() walks characters, which cost more than the rest.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + authorText.utf8.count + 10)
        bytes.append(contentsOf: text.utf8)
        bytes.removeLast()
        bytes.append(contentsOf: #","author":"#.utf8)
        bytes.append(contentsOf: authorText.utf8)
        bytes.append(UInt8(ascii: "}"))
        return ChangeEvent(type: type, payload: payload, text: String(decoding: bytes, as: UTF8.self))
    }

    /// The history the change is listed in (``HistorySubject``): the counter's, the font
    /// settings', or a preference key's; `nil` for the defaults and navigation.
    public var subject: String? {
        switch type {
        case .counter: HistorySubject.counter
        case .refresh: HistorySubject.font
        case .preference: if case .string(let key)? = payload["key"] { key } else { nil }
        case .navigation, .reset, .shutdown, .revoked: nil
        }
    }

    /// A counter change (the `numIndex` key, through the counter routes or the preference
    /// routes): the operation, its step, the new value and version.
    public static func counter(_ operation: CounterOperation, _ state: CounterState) -> ChangeEvent {
        let step: Int64? = switch operation {
        case .increment(let step), .decrement(let step): step.amount
        case .reset, .set: nil
        }
        return counter(operation: operation.name, step: step, state)
    }

    /// A counter change by name: `increment`, `decrement`, `reset`, `set`, or `remove` (the
    /// stored value was deleted and the counter reads its default or 0 again).
    public static func counter(operation: String, step: Int64? = nil, _ state: CounterState) -> ChangeEvent {
        // Names known distinct, built at once: it runs for every counter write.
        var members: [JSONObject.Member] = []
        members.reserveCapacity(7)
        members.append(("profile", .string(state.profile.rawValue)))
        members.append(("key", .string(WellKnownKey.counter.rawValue)))
        members.append(("operation", .string(operation)))
        if let step { members.append(("by", .integer(step))) }
        members.append(("value", .integer(state.counter.value)))
        members.append(("stringValue", .string(state.counter.stringValue)))
        members.append(("version", .integer(state.version.rawValue)))
        // The text as JSONWriter writes it, written at once (a profile name and an operation
        // need no escaping: profile names are letters, digits and `._-`, operations are words).
        guard !JSONWriter.needsEscaping(operation) else { return ChangeEvent(type: .counter, payload: JSONObject(uniqueMembers: members)) }
        let value = String(state.counter.value)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160)
        bytes.append(contentsOf: #"{"profile":""#.utf8)
        bytes.append(contentsOf: state.profile.rawValue.utf8)
        bytes.append(contentsOf: #"","key":""#.utf8)
        bytes.append(contentsOf: WellKnownKey.counter.rawValue.utf8)
        bytes.append(contentsOf: #"","operation":""#.utf8)
        bytes.append(contentsOf: operation.utf8)
        bytes.append(UInt8(ascii: "\""))
        if let step {
            bytes.append(contentsOf: #","by":"#.utf8)
            bytes.append(contentsOf: String(step).utf8)
        }
        bytes.append(contentsOf: #","value":"#.utf8)
        bytes.append(contentsOf: value.utf8)
        bytes.append(contentsOf: #","stringValue":""#.utf8)
        bytes.append(contentsOf: value.utf8)
        bytes.append(contentsOf: #"","version":"#.utf8)
        bytes.append(contentsOf: String(state.version.rawValue).utf8)
        bytes.append(UInt8(ascii: "}"))
        let text = String(decoding: bytes, as: UTF8.self)
        return ChangeEvent(type: .counter, payload: JSONObject(uniqueMembers: members), text: text)
    }

    /// The seed's `doRefreshNotification`: the font settings changed (one event per accepted
    /// change, F-6). It carries the new settings, so subscribers need not come back to read them.
    /// `removedKeys` (only when a font key's stored value was deleted) tells a mirror that the key
    /// reads its default or nothing now, rather than the number its view reads.
    public static func refresh(_ state: FontState, changedKeys: [PreferenceKey], removedKeys: [PreferenceKey] = []) -> ChangeEvent {
        var payload: JSONObject = [
            "profile": .string(state.profile.rawValue),
            "name": .string("doRefreshNotification"),
            "keys": .array(changedKeys.map { .string($0.rawValue) }),
            "sliderValue": .number(state.settings.sliderValue),
            "fontSize": .number(state.settings.fontSize),
            "effectiveFontSize": .number(state.settings.effectiveFontSize),
        ]
        if !removedKeys.isEmpty { payload["removed"] = .array(removedKeys.map { .string($0.rawValue) }) }
        payload["version"] = .integer(state.version.rawValue)
        return ChangeEvent(type: .refresh, payload: payload)
    }

    /// A stored preference was set (`value`) or removed (`nil`; what readers see then, the
    /// registered default or nothing, is `visible`), P-7.
    public static func preference(_ profile: ProfileName, key: PreferenceKey, value: JSONValue?, visible: JSONValue?,
                                  version: Version) -> ChangeEvent {
        var payload: JSONObject = ["profile": .string(profile.rawValue), "key": .string(key.rawValue)]
        if let value {
            payload["value"] = value
        } else {
            payload["removed"] = .bool(true)
            payload["value"] = visible ?? .null
        }
        payload["version"] = .integer(version.rawValue)
        return ChangeEvent(type: .preference, payload: payload)
    }

    /// A stored preference was merged with an object patch (RFC 7396, `PATCH .../preferences`):
    /// the patch, and `from`, the version of the object it was merged into (the key's stored
    /// value, else its registered default, as readers saw it). What changed, never the whole
    /// value: a patch of a few bytes on a value of 64 KiB logs a few bytes. A mirror that holds
    /// the key at `from` applies the patch; one that does not reads the key (or the profile) again.
    public static func mergedPreference(_ profile: ProfileName, key: PreferenceKey, patch: JSONValue, from: Version,
                                        version: Version) -> ChangeEvent {
        ChangeEvent(type: .preference, payload: [
            "profile": .string(profile.rawValue),
            "key": .string(key.rawValue),
            "patch": patch,
            "from": .integer(from.rawValue),
            "version": .integer(version.rawValue),
        ])
    }

    /// Registered defaults were merged (`PATCH .../defaults`): what changed only, each key of
    /// the patch with its default now, `null` where it was unregistered. A patch of ten bytes
    /// on megabytes of defaults logs its keys, never the whole set.
    public static func changedDefaults(_ profile: ProfileName, _ changes: JSONObject, version: Version) -> ChangeEvent {
        ChangeEvent(type: .preference, payload: [
            "profile": .string(profile.rawValue),
            "changedDefaults": .object(changes),
            "version": .integer(version.rawValue),
        ])
    }

    /// The registered defaults were replaced (`PUT .../defaults`): the whole set, as sent.
    public static func defaults(_ profile: ProfileName, _ defaults: JSONObject, version: Version) -> ChangeEvent {
        ChangeEvent(type: .preference, payload: [
            "profile": .string(profile.rawValue),
            "defaults": .object(defaults),
            "version": .integer(version.rawValue),
        ])
    }
}

/// An entry of a profile's event log, as stored and as streamed.
public struct LoggedEvent: Sendable, Hashable {
    /// The position in the profile's log: 1, 2, 3, ... (the SSE `id:`).
    public let id: Int64
    public let profile: ProfileName
    public let type: EventType
    /// The event's data: one JSON object, as text (streamed as is, never re-encoded).
    public let data: String
    /// Milliseconds since the Unix epoch, when the change was committed.
    public let timestamp: Int64

    public init(id: Int64, profile: ProfileName, type: EventType, data: String, timestamp: Int64) {
        self.id = id
        self.profile = profile
        self.type = type
        self.data = data
        self.timestamp = timestamp
    }
}
