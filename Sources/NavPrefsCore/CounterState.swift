/// A profile's counter as stored: its value and version.
public struct CounterState: Sendable, Hashable {
    public let profile: ProfileName
    public let counter: Counter
    public let version: Version

    public init(profile: ProfileName, counter: Counter, version: Version) {
        self.profile = profile
        self.counter = counter
        self.version = version
    }

    /// The counter of a profile nobody wrote to yet (C-1).
    public static func fresh(_ profile: ProfileName) -> CounterState {
        CounterState(profile: profile, counter: .initial, version: .initial)
    }
}

/// The result of an accepted counter write: the new state and the event logged with it.
public struct CounterChange: Sendable, Hashable {
    public let operation: CounterOperation
    public let state: CounterState
    public let eventID: Int64

    public init(operation: CounterOperation, state: CounterState, eventID: Int64) {
        self.operation = operation
        self.state = state
        self.eventID = eventID
    }
}
