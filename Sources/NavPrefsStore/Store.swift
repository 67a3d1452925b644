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
///
/// Access tokens and shared secrets are not profile data and have their own face,
/// ``TokenStore``, which both stores also provide: authentication is handed that one.
public protocol Store: Sendable {
    /// What the store found worth an operator's attention while starting (a database file
    /// readable by others, tightened), for the start-up log.
    var startNotices: [String] { get }

    /// Opens (creating and migrating if needed) the database and starts the store's threads.
    /// - Throws: ``StoreError/unavailable(reason:)`` when the database cannot be opened or has a
    ///   schema this build does not know.
    func start() throws(StoreError)

    // MARK: Reads and writes as values

    /// Runs `read` and calls `completion` once with its value: on the calling thread, before
    /// returning, when the store can read there without waiting for another thread (SQLite),
    /// else on the thread that read (a reader, a PostgreSQL pool thread). The request path's
    /// form: a read then crosses no thread, and never a task.
    func perform<Value: Sendable>(_ read: StoreRead<Value>, completion: @escaping StoreCompletion<Value>)

    /// Runs `write` in one transaction, creating its profile on its first write, and calls
    /// `completion` once with its value or its refusal (a refused write keeps nothing), on the
    /// thread that committed or refused it. Every write of the store is one of these values.
    func perform<Value: Sendable>(_ write: StoreWrite<Value>, completion: @escaping StoreCompletion<Value>)

    /// Runs `write` under an idempotency key: in one transaction, claims the key, runs the write
    /// and records `answer` of its value, so a retry within ``StoreLimits/idempotencyWindow``
    /// gets the recorded answer and writes nothing, whichever instance it reaches. A refused
    /// write (a ``StoreError``) records nothing and is answered as without a key.
    func perform<Value: Sendable>(_ write: StoreWrite<Value>, remembering request: IdempotentRequest,
                                  answer: @escaping @Sendable (Value) -> RecordedAnswer,
                                  completion: @escaping StoreCompletion<IdempotentOutcome>)

    // MARK: The event log

    /// Where committed events go, in commit order, before their write is acknowledged: the
    /// boundary between the store and whoever streams events (it never calls them).
    var feed: EventFeed { get }

    /// The oldest id the log still keeps and the newest issued, for `profile` (both from a
    /// profile that does not exist yet: earliest 1, latest 0).
    func eventLogBounds(of profile: ProfileName) async throws(StoreError) -> EventLogBounds

    /// Finishes queued writes and releases the store. Calls after this throw ``StoreError/closed``.
    func close() async
}

/// A store that runs light writes on the thread that makes them, in that thread's turns (the
/// SQLite store, on the HTTP event loop): the writes of a turn share one transaction and are
/// answered once its commit is durable. The HTTP layer is handed one explicitly and tells it of
/// the event loop's turns; a store without it (PostgreSQL) takes every write on its own threads.
public protocol TurnWriting: Sendable {
    /// The calling thread begins a turn (the event loop, before it serves its ready
    /// connections): the writes it makes until ``endTurn()`` whose work is bounded may be taken
    /// by the turn and run on this thread, together, in one transaction, answered only after
    /// that transaction is committed at the store's durability. Ignored while another thread's
    /// turn is open.
    func beginTurn()

    /// Ends the calling thread's turn: runs the writes it took and commits them, once, and
    /// answers them (with a flush, once the flush is done). Never waits for a flush or another
    /// thread. The transaction may stay open while a flush runs, to commit at a later turn's end,
    /// if the thread called ``startTurns(wake:)``.
    func endTurn()

    /// The calling thread will run turns from now on, and `wake` wakes it between them (the
    /// event loop's waker): a turn's transaction may then stay open while a flush runs, and the
    /// thread is woken to commit it once the flush is done.
    func startTurns(wake: @escaping @Sendable () -> Void)

    /// The calling thread runs no more turns: whatever a turn kept open commits now.
    func stopTurns()
}

/// A store whose reads on the request path are bounded where they run (every
/// ``TransactionalStore``): a read tried on the event loop stops once it passes what the loop
/// may read, and goes elsewhere. The HTTP layer asks a store for it where a read may be large
/// (a profile's state, preferences, defaults), to answer a conditional request from a smaller
/// read instead.
public protocol LoopReading: Store {
    /// Runs `read` on the calling thread if the store can there, within what that thread may
    /// read (see ``CallingThreadRead``); never waits.
    func performOnCallingThread<Value: Sendable>(_ read: StoreRead<Value>) -> CallingThreadRead<Value>

    /// Runs `read` on the store's own threads (a reader, a PostgreSQL pool thread) and calls
    /// `completion` there: for a read the calling thread could not make (``CallingThreadRead/elsewhere``).
    func performElsewhere<Value: Sendable>(_ read: StoreRead<Value>, completion: @escaping StoreCompletion<Value>)

    /// ``performElsewhere(_:completion:)`` for a read too large for the calling thread
    /// (``CallingThreadRead/tooLarge``): on threads below the event loop's priority where the store has
    /// them (SQLite's large readers), so that `completion` may render a large answer there. It
    /// must hand its result on without starting or resuming a task (``lowerThreadPriority()``).
    func performLarge<Value: Sendable>(_ read: StoreRead<Value>, completion: @escaping StoreCompletion<Value>)
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
            /// The key holds this value now: its compact JSON text, as the store holds it. Written
            /// once, on the store's writer, for the store; an answer holds it as it is rather
            /// than the writer handing on a value that would be encoded again.
            case set(json: String)
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
