public import NavPrefsCore

/// Where NavPrefs keeps profiles, their resources and their event log.
///
/// Every write is one transaction that changes the resource and appends its event to the log,
/// so the log never misses a change and never shows one that did not happen. A write returns
/// only once it is committed at the store's durability. Implementations: `SQLiteStore`
/// (embedded, one process) and `PostgresStore` (several instances on one database), both running
/// the one algorithm of ``TransactionalStore`` in their SQL dialect.
///
/// Lifecycle: an initializer only records options; ``start()`` opens the database and starts
/// the store's threads; ``close()`` stops them.
public protocol Store: TokenStore {
    /// What the store found worth an operator's attention while starting (a database file
    /// readable by others, tightened), for the start-up log.
    var startNotices: [String] { get }

    /// Opens (creating and migrating if needed) the database and starts the store's threads.
    /// - Throws: ``StoreError/unavailable(reason:)`` when the database cannot be opened or has a
    ///   schema this build does not know.
    func start() throws(StoreError)

    /// The counter of `profile`. A profile nobody wrote to reads as a fresh suite: 0, version 0
    /// (every read of the store answers so: writing is what makes a profile exist).
    func counter(of profile: ProfileName) async throws(StoreError) -> CounterState

    /// Applies `operation` atomically (one statement, no read-modify-write), creating the profile
    /// on its first write, and logs a `counter` event in the same transaction.
    /// - Throws: ``StoreError/preconditionFailed(current:)`` when `precondition` does not admit the
    ///   current version; ``StoreError/counter(_:)`` when the result would leave Int64.
    ///   Nothing is written or logged in either case.
    func apply(_ operation: CounterOperation, toCounterOf profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> CounterChange

    // MARK: Preferences (UserDefaults' two layers), semantics P-1..P-7

    /// Every stored value and registered default of `profile` (none, version 0, for a profile
    /// nobody wrote to).
    func preferences(of profile: ProfileName) async throws(StoreError) -> PreferenceSnapshot

    /// One key of `profile` in both layers (an absent key is a slot with neither).
    func preference(_ key: PreferenceKey, of profile: ProfileName) async throws(StoreError) -> PreferenceSlot

    /// Stores `value` under `key` (in the form a well-known key's view reads), logging the event
    /// of the key's view: `counter` for `numIndex`, `refresh` for the font keys, else `preference`.
    /// - Throws: ``StoreError/preconditionFailed(current:)``, ``StoreError/invalidValue(_:)`` for a
    ///   value that would break a typed view, ``StoreError/tooManyPreferences(limit:)``.
    func setPreference(_ value: JSONValue, for key: PreferenceKey, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> PreferenceChange

    /// Deletes the stored value of `key`; its registered default, if any, shows again (P-6).
    /// When nothing is stored under `key`, nothing changes and nothing is logged, as
    /// `removeObject(forKey:)` does (the change's `eventID` is `nil`).
    func removePreference(_ key: PreferenceKey, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> PreferenceChange

    /// Sets and removes several keys in one transaction (`setValuesForKeys`, a JSON Merge
    /// Patch): `nil` removes. `precondition` applies to the version of the profile's preferences
    /// as a whole. Each key that changes logs its own event (the event its view logs), in the
    /// order given, all committed together; removing a key with no stored value changes nothing.
    func updatePreferences(_ changes: [PreferenceUpdate], of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> PreferencesChange

    /// The registered defaults of `profile` (`register(defaults:)`), kept with the profile.
    func defaults(of profile: ProfileName) async throws(StoreError) -> DefaultsState

    /// Replaces the registered defaults of `profile` (`merging`: adds to them, as
    /// `register(defaults:)` does; a `null` member then removes that default).
    func setDefaults(_ defaults: JSONObject, merging: Bool, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> DefaultsChange

    // MARK: Font settings (seed 001), semantics F-1..F-7

    func font(of profile: ProfileName) async throws(StoreError) -> FontState

    /// Stores both font keys in one transaction and logs exactly one `refresh` event.
    func setFont(_ settings: FontSettings, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> FontChange

    // MARK: Navigation sessions (UINavigationController), semantics S-1..S-14

    /// Stores `session` under a new random id, creating the profile on its first write, and
    /// logs a `navigation` event (`create`).
    /// - Throws: ``StoreError/tooManySessions(limit:)``.
    func createSession(_ session: NavigationSession, of profile: ProfileName) async throws(StoreError) -> SessionChange<Void>

    /// The sessions of `profile`, oldest first (none for a profile nobody wrote to).
    func sessions(of profile: ProfileName) async throws(StoreError) -> [SessionSummary]

    /// One session. Throws ``StoreError/sessionNotFound(_:)``.
    func session(_ id: SessionID, of profile: ProfileName) async throws(StoreError) -> SessionState

    /// Runs `edit` on the session as stored, inside the write transaction, so that concurrent
    /// edits apply one after the other and none is lost. When the edit reports a change, the
    /// new state is stored with a new version and its `navigation` event is logged; otherwise
    /// nothing is written (a pop at the root, S-4).
    /// - Throws: ``StoreError/sessionNotFound(_:)``, ``StoreError/preconditionFailed(current:)``,
    ///   ``StoreError/navigation(_:)`` when the edit refuses (nothing written).
    func updateSession<Result: Sendable>(
        _ id: SessionID, of profile: ProfileName, if precondition: WritePrecondition?,
        _ edit: @escaping @Sendable (inout NavigationSession) throws(NavigationError) -> SessionEdit<Result>
    ) async throws(StoreError) -> SessionChange<Result>

    /// Deletes a session and logs a `navigation` event (`delete`); answers the event's id (also
    /// the session's last version).
    func deleteSession(_ id: SessionID, of profile: ProfileName, if precondition: WritePrecondition?) async throws(StoreError) -> Int64

    // MARK: Reads and writes as values

    /// Runs `read` and calls `completion` once with its value: on the calling thread, before
    /// returning, when the store can read there without waiting for another thread (SQLite),
    /// else on the thread that read (a reader, a PostgreSQL pool thread). The request path's
    /// form: a read then crosses no thread, and never a task.
    func perform<Value: Sendable>(_ read: StoreRead<Value>, completion: @escaping StoreCompletion<Value>)

    /// Runs `write` in one transaction: what each write above does, for a write built as a value
    /// (``StoreWrite``).
    func perform<Value: Sendable>(_ write: StoreWrite<Value>) async throws(StoreError) -> Value

    /// ``perform(_:)`` without a task: `completion` is called on the thread that committed (or
    /// refused) the write. The request path uses this form.
    func perform<Value: Sendable>(_ write: StoreWrite<Value>, completion: @escaping StoreCompletion<Value>)

    /// Runs `write` under an idempotency key: in one transaction, claims the key, runs the write
    /// and records `answer` of its value, so a retry within ``StoreLimits/idempotencyWindow``
    /// gets the recorded answer and writes nothing, whichever instance it reaches. A refused
    /// write (a ``StoreError``) records nothing and is thrown as without a key.
    func perform<Value: Sendable>(_ write: StoreWrite<Value>, remembering request: IdempotentRequest,
                                  answer: @escaping @Sendable (Value) -> RecordedAnswer) async throws(StoreError) -> IdempotentOutcome

    /// ``perform(_:remembering:answer:)`` without a task (see ``perform(_:completion:)``).
    func perform<Value: Sendable>(_ write: StoreWrite<Value>, remembering request: IdempotentRequest,
                                  answer: @escaping @Sendable (Value) -> RecordedAnswer,
                                  completion: @escaping StoreCompletion<IdempotentOutcome>)

    // MARK: The whole profile

    /// Everything a client mirrors of `profile`, from one snapshot, with the id of the newest
    /// event that snapshot includes: a client that opens the event stream after that id misses
    /// nothing and sees nothing twice.
    func state(of profile: ProfileName) async throws(StoreError) -> ProfileState

    // MARK: Profiles

    /// At most `limit` (at least 1) profiles whose names sort after `after` (from the first when
    /// `nil`), in the byte order of their names on every database, and where the next page starts.
    func profiles(after: ProfileName?, limit: Int) async throws(StoreError) -> ProfilePage

    /// The `limit` profiles holding the most bytes (quota and event log), largest first.
    func largestProfiles(limit: Int) async throws(StoreError) -> [ProfileStorage]

    // MARK: The event log

    /// Where committed events go, in commit order, before their write is acknowledged: the
    /// boundary between the store and whoever streams events (it never calls them).
    var feed: EventFeed { get }

    /// The oldest id the log still keeps and the newest issued, for `profile` (both from a
    /// profile that does not exist yet: earliest 1, latest 0).
    func eventLogBounds(of profile: ProfileName) async throws(StoreError) -> EventLogBounds

    /// Logged events of `profile` with an id greater than `id`, oldest first, at most `limit`,
    /// and with `maxBytes` at most that many bytes of data (the first always: a page is never empty).
    func events(of profile: ProfileName, after id: Int64, limit: Int, maxBytes: Int?) async throws(StoreError) -> [LoggedEvent]

    /// Whether the store answers (for readiness checks).
    func ping() async throws(StoreError)

    /// Finishes queued writes and releases the store. Calls after this throw ``StoreError/closed``.
    func close() async
}

/// A store that can answer counter reads from memory, without I/O (the SQLite store: it sees
/// every write). The HTTP layer is handed one explicitly, to answer hot reads on its event loop.
public protocol CounterCacheReading: Sendable {
    /// The counter of `profile` if it is in memory; `nil` when it must be read with ``counterRead(of:)``.
    func cachedCounter(of profile: ProfileName) -> CounterState?
    /// The read of `profile`'s counter that also fills the cache with what it finds.
    func counterRead(of profile: ProfileName) -> StoreRead<CounterState>
}

/// An accepted preference write or removal: the key as it reads now, and the event logged
/// (`nil`: nothing changed, as when removing a key that had no stored value).
public struct PreferenceChange: Sendable, Hashable {
    public let slot: PreferenceSlot
    public let eventID: Int64?
    /// Whether readers saw no value for the key before (neither stored nor registered).
    public let created: Bool

    public init(slot: PreferenceSlot, eventID: Int64?, created: Bool = false) {
        self.slot = slot
        self.eventID = eventID
        self.created = created
    }
}

/// One key of a multi-key write: a JSON Merge Patch of its value (RFC 7396: an object merges
/// into the value, recursively, its `null` members removing; anything else replaces it), or
/// `nil` to remove it.
public struct PreferenceUpdate: Sendable, Hashable {
    /// The largest value a merge may leave, as compact JSON, unless the caller says otherwise.
    public static let defaultMaxValueBytes = 64 << 10

    public let key: PreferenceKey
    public let value: JSONValue?

    public init(key: PreferenceKey, value: JSONValue?) {
        self.key = key
        self.value = value
    }
}

extension Store {
    /// Logged events of `profile` with an id greater than `id`, oldest first, at most `limit`.
    public func events(of profile: ProfileName, after id: Int64, limit: Int) async throws(StoreError) -> [LoggedEvent] {
        try await events(of: profile, after: id, limit: limit, maxBytes: nil)
    }
}

/// An accepted multi-key write: what it changed, key by key in the order given, each as its
/// event says it (none when nothing changed), and the version of the whole set after it.
/// Never the profile's values: a small patch of a large profile answers small.
public struct PreferencesChange: Sendable, Hashable {
    /// One changed key.
    public struct KeyChange: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            /// The key holds this value now (as stored).
            case set(JSONValue)
            /// An object patch (RFC 7396) merged into the object the key read at version `from`
            /// (its stored value, else its registered default): the value is that object with
            /// the patch applied.
            case merged(patch: JSONValue, from: Version)
            /// The stored value is gone; readers see what `source` says now.
            case removed(PreferenceSlot.Source)
        }

        public let key: PreferenceKey
        public let kind: Kind
        /// The id of the event the change logged: the key's version now.
        public let version: Version

        public init(key: PreferenceKey, kind: Kind, version: Version) {
            self.key = key
            self.kind = kind
            self.version = version
        }
    }

    public let profile: ProfileName
    public let changes: [KeyChange]
    /// The version of the whole set of values and defaults after the write.
    public let version: Version

    public init(profile: ProfileName, changes: [KeyChange], version: Version) {
        self.profile = profile
        self.changes = changes
        self.version = version
    }

    /// The events the write logged, one per changed key.
    public var eventIDs: [Int64] { changes.map(\.version.rawValue) }
    /// The keys that changed, in the order their events were logged.
    public var changedKeys: [PreferenceKey] { changes.map(\.key) }
}

/// A profile's registered defaults and their version (0 until first registered).
public struct DefaultsState: Sendable, Hashable {
    public let profile: ProfileName
    public let values: JSONObject
    public let version: Version

    public init(profile: ProfileName, values: JSONObject, version: Version) {
        self.profile = profile
        self.values = values
        self.version = version
    }
}

public struct DefaultsChange: Sendable, Hashable {
    public let state: DefaultsState
    public let eventID: Int64

    public init(state: DefaultsState, eventID: Int64) {
        self.state = state
        self.eventID = eventID
    }
}

public struct FontChange: Sendable, Hashable {
    public let state: FontState
    public let eventID: Int64

    public init(state: FontState, eventID: Int64) {
        self.state = state
        self.eventID = eventID
    }
}

/// The ids a profile's event log can serve.
public struct EventLogBounds: Sendable, Hashable {
    /// The oldest id still kept; `latest + 1` when none is kept.
    public let earliest: Int64
    /// The newest id issued; 0 before the first event.
    public let latest: Int64

    public init(earliest: Int64, latest: Int64) {
        self.earliest = earliest
        self.latest = latest
    }
}
