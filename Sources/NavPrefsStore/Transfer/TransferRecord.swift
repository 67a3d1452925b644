public import NavPrefsCore

/// One line of the transfer format (see ``TransferFormat``).
public enum TransferRecord: Sendable, Equatable {
    case header(TransferHeader)
    case profile(TransferProfile)
    /// A profile's registered defaults, in registration order, and their version (also written
    /// when the set is empty but was registered: its version still counts for ETags), with when
    /// and by whom they last changed, when the store knows (format 2 on).
    case defaults(profile: ProfileName, version: Int64, values: JSONObject, lastChange: LastChange? = nil)
    /// A stored value (any JSON but null, in the form the key's view reads), its version, and
    /// when and by whom it was written.
    case preference(profile: ProfileName, key: PreferenceKey, version: Int64, value: JSONValue, lastChange: LastChange? = nil)
    /// A removed key's version, kept so that views over several keys never show a version again,
    /// and when and by whom it was removed.
    case tombstone(profile: ProfileName, key: PreferenceKey, version: Int64, lastChange: LastChange? = nil)
    case session(TransferSession)
    case event(TransferEvent)
    /// An access token as stored: its SHA-256, never the token.
    case token(TokenRecord)
    case secret(name: String, value: String)
    /// The last line: how many records of each kind came before it.
    case end(TransferCounts)
}

/// A profile's row: its event sequence and the version of its preferences as a whole.
public struct TransferProfile: Sendable, Equatable {
    public var name: ProfileName
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// The newest event id issued; the next write takes the one after (pruned events included).
    public var lastEventID: Int64
    /// The ETag of `GET .../preferences`: the id of the last change of any value or default.
    public var preferencesVersion: Int64

    public init(name: ProfileName, createdAt: Int64, lastEventID: Int64, preferencesVersion: Int64) {
        self.name = name
        self.createdAt = createdAt
        self.lastEventID = lastEventID
        self.preferencesVersion = preferencesVersion
    }
}

/// A navigation session: its whole state as the service keeps it.
public struct TransferSession: Sendable, Equatable {
    public var profile: ProfileName
    public var id: SessionID
    public var version: Int64
    /// The id of the event that created it: sessions list in this order.
    public var createdSequence: Int64
    public var createdAt: Int64
    /// `NavigationSession`'s JSON form.
    public var state: JSONValue
    /// What its client called it.
    public var label: String?
    /// When it last changed (the idle expiry counts from here); `nil` in exports made before
    /// sessions kept it, read as `createdAt`.
    public var updatedAt: Int64?

    public init(profile: ProfileName, id: SessionID, version: Int64, createdSequence: Int64, createdAt: Int64, state: JSONValue,
                label: String? = nil, updatedAt: Int64? = nil) {
        self.profile = profile
        self.id = id
        self.version = version
        self.createdSequence = createdSequence
        self.createdAt = createdAt
        self.state = state
        self.label = label
        self.updatedAt = updatedAt
    }
}

/// An entry of a profile's event log, as streamed (`id:`, `event:`, `data:`).
public struct TransferEvent: Sendable, Equatable {
    public var profile: ProfileName
    public var id: Int64
    /// ``EventType``'s raw value.
    public var type: String
    /// Milliseconds since 1970, when its write committed (retention by age counts from it).
    public var createdAt: Int64
    /// One JSON object.
    public var data: JSONValue

    public init(profile: ProfileName, id: Int64, type: String, createdAt: Int64, data: JSONValue) {
        self.profile = profile
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.data = data
    }
}
