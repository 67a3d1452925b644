public import NavPrefsCore

/// A navigation session as stored: its state and version (the id of the event that last changed it).
public struct SessionState: Sendable, Hashable {
    public let profile: ProfileName
    public let id: SessionID
    public let session: NavigationSession
    public let version: Version
    /// What the client that made the session called it (an app's launch, a device), if anything.
    public let label: String?
    /// When it was made and last changed, in milliseconds since 1970 by the database's clock
    /// (0 for a state not read from the store). A session unchanged for
    /// ``StoreLimits/sessionIdleExpiry`` expires.
    public let createdAt: Int64
    public let updatedAt: Int64

    public init(profile: ProfileName, id: SessionID, session: NavigationSession, version: Version, label: String? = nil,
                createdAt: Int64 = 0, updatedAt: Int64 = 0) {
        self.profile = profile
        self.id = id
        self.session = session
        self.version = version
        self.label = label
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// One line of a profile's session list: enough to pick a session without reading its screens.
public struct SessionSummary: Sendable, Hashable {
    public let id: SessionID
    public let version: Version
    public let depth: Int
    public let root: ScreenID
    public let top: ScreenID
    public let label: String?
    /// Milliseconds since 1970 (see ``SessionState/createdAt``).
    public let createdAt: Int64
    public let updatedAt: Int64

    public init(id: SessionID, version: Version, depth: Int, root: ScreenID, top: ScreenID, label: String? = nil,
                createdAt: Int64 = 0, updatedAt: Int64 = 0) {
        self.id = id
        self.version = version
        self.depth = depth
        self.root = root
        self.top = top
        self.label = label
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What an edit of a session did: its own result (a transition, say) and, when the session
/// changed, the action and details of the `navigation` event to log (`nil`: nothing changed,
/// nothing is written, no version is taken).
public struct SessionEdit<Result: Sendable>: Sendable {
    public let result: Result
    public let event: (action: String, details: JSONObject)?

    public init(result: Result, event: (action: String, details: JSONObject)?) {
        self.result = result
        self.event = event
    }

    /// An edit that changed nothing.
    public static func unchanged(_ result: Result) -> SessionEdit { SessionEdit(result: result, event: nil) }
}

/// An accepted session write: the state after it, the edit's result, and the id of the event
/// it logged (`nil` when nothing changed).
public struct SessionChange<Result: Sendable>: Sendable {
    public let state: SessionState
    public let result: Result
    public let eventID: Int64?

    public init(state: SessionState, result: Result, eventID: Int64?) {
        self.state = state
        self.result = result
        self.eventID = eventID
    }
}
