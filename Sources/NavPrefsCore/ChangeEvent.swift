public import NavPrefsJSON

/// The kinds of change the event log records, as SSE event names.
public enum EventType: String, Sendable, CaseIterable {
    /// The seed's `doRefreshNotification`: font settings changed, screens should re-read.
    case refresh
    case counter
    case preference
    case navigation
    /// Not logged: sent to a subscriber whose position the log no longer covers.
    case reset
}

/// A change as it is written to the event log, in the same transaction as the change itself.
public struct ChangeEvent: Sendable, Hashable {
    public let type: EventType
    /// The event's data, one JSON object.
    public let payload: JSONObject

    public init(type: EventType, payload: JSONObject) {
        self.type = type
        self.payload = payload
    }

    /// The payload as JSON text, as the log stores it.
    public var data: String { JSONValue.object(payload).jsonText }

    /// The event for an accepted counter operation (`value` and `version` are the new ones).
    public static func counter(_ operation: CounterOperation, _ state: CounterState) -> ChangeEvent {
        var payload: JSONObject = [
            "profile": .string(state.profile.rawValue),
            "operation": .string(operation.name),
        ]
        switch operation {
        case .increment(let step), .decrement(let step): payload["by"] = .integer(step.amount)
        case .set, .reset: break
        }
        payload["value"] = .integer(state.counter.value)
        payload["stringValue"] = .string(state.counter.stringValue)
        payload["version"] = .integer(state.version.rawValue)
        return ChangeEvent(type: .counter, payload: payload)
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
