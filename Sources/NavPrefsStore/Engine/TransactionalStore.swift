public import NavPrefsCore

/// A ``Store`` that runs the one store algorithm (the `Operations` folder) on transactions of its
/// SQL dialect. A dialect target provides how to run a read and a write on its connections; every
/// operation of ``Store`` is then written once, in the extensions of this protocol.
public protocol TransactionalStore: LoopReading, TokenStore {
    /// Bounds the algorithm enforces.
    var limits: StoreLimits { get }

    /// Runs `body` on a connection of the store and calls `completion` with its value, on the
    /// thread that ran it. With `snapshot`, every statement `body` runs sees the same committed
    /// state (one read transaction); a body of a single statement does without. It may run
    /// twice when a connection is lost: reads are safe to repeat.
    func read<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value,
                               completion: @escaping StoreCompletion<Value>)

    /// ``read(snapshot:_:completion:)`` for a read too large for the event loop
    /// (``LoopReading/performLarge(_:completion:)``): below the loop's priority where the store has
    /// threads for that; as any read where it has not.
    func readLarge<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value,
                                    completion: @escaping StoreCompletion<Value>)

    /// Runs `body` in a write transaction and calls `completion` with the outcome's value once
    /// the transaction has committed at the store's durability, after the outcome's events
    /// were published to ``Store/feed`` in commit order; on the thread that committed (SQLite's
    /// writer, a PostgreSQL pool thread), with no task in between. A ``StoreError`` thrown by
    /// `body` refuses the write: nothing of it is kept and the error is answered; any other
    /// error is a storage failure.
    ///
    /// - Parameter profile: the one profile `body` changes (it locks no other), or `nil` when
    ///   it may touch several or none. Writes that name their profile may share a transaction
    ///   with others (each in a savepoint of its own), run in the order of their profiles.
    func write<Value: Sendable>(changing profile: ProfileName?, _ body: @escaping @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>,
                                completion: @escaping StoreCompletion<Value>)

    /// ``write(changing:_:completion:)`` for a write that carries `weight` bytes: a store with
    /// one writer keeps heavy writes from holding light ones back (SQLite's writer); the others
    /// need not care.
    func write<Value: Sendable>(changing profile: ProfileName?, weight: Int,
                                _ body: @escaping @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>,
                                completion: @escaping StoreCompletion<Value>)

    /// ``write(changing:weight:_:completion:)`` for a write whose work is bounded whatever the
    /// profile holds (`bounded`, ``StoreWrite/runsBounded(under:)``): a store may run it on
    /// the calling thread, in the turn that thread opened (``TurnWriting/beginTurn()``), and answer
    /// it once that turn's commit is durable (SQLite); the others need not care.
    func write<Value: Sendable>(changing profile: ProfileName?, weight: Int, bounded: Bool,
                                _ body: @escaping @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>,
                                completion: @escaping StoreCompletion<Value>)

    /// Runs `body` on the calling thread, if the store can without waiting for another thread
    /// or a lock, and within the bytes that thread may read (``CallingThreadRead``); otherwise the
    /// caller reads with ``read(snapshot:_:completion:)``. For the event loop: SQLite reads a few
    /// rows of its own file in microseconds; a PostgreSQL read is a network round trip, so that
    /// store answers `.elsewhere`.
    func tryReadOnCallingThread<Value: Sendable>(snapshot: Bool, _ body: (any StoreTransaction) throws -> Value) -> CallingThreadRead<Value>

    /// ``read(snapshot:_:completion:)`` where only the primary database may answer (see
    /// ``StoreRead/needsPrimary``); a store without standbys reads as always.
    func readFromPrimary<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value,
                                          completion: @escaping StoreCompletion<Value>)
}

extension TransactionalStore {
    public func write<Value: Sendable>(changing profile: ProfileName?, weight: Int,
                                       _ body: @escaping @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>,
                                       completion: @escaping StoreCompletion<Value>) {
        write(changing: profile, body, completion: completion)
    }

    public func write<Value: Sendable>(changing profile: ProfileName?, weight: Int, bounded: Bool,
                                       _ body: @escaping @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>,
                                       completion: @escaping StoreCompletion<Value>) {
        write(changing: profile, weight: weight, body, completion: completion)
    }

    /// No store reads on the caller's thread unless it says how.
    public func tryReadOnCallingThread<Value: Sendable>(snapshot: Bool, _ body: (any StoreTransaction) throws -> Value) -> CallingThreadRead<Value> {
        .elsewhere
    }

    /// ``tryReadOnCallingThread(snapshot:_:)``'s value, or `nil` when the read belongs elsewhere.
    public func readOnCallingThread<Value: Sendable>(snapshot: Bool, _ body: (any StoreTransaction) throws -> Value) -> Result<Value, StoreError>? {
        if case .done(let result) = tryReadOnCallingThread(snapshot: snapshot, body) { return result }
        return nil
    }

    /// A store without standbys: every database it reads is the primary.
    public func readFromPrimary<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value,
                                                 completion: @escaping StoreCompletion<Value>) {
        read(snapshot: snapshot, body, completion: completion)
    }

    public func perform<Value: Sendable>(_ read: StoreRead<Value>, completion: @escaping StoreCompletion<Value>) {
        if let result = readOnCallingThread(snapshot: read.snapshot, read.body) { return completion(result) }
        if read.needsPrimary { return readFromPrimary(snapshot: read.snapshot, read.body, completion: completion) }
        self.read(snapshot: read.snapshot, read.body, completion: completion)
    }

    public func performOnCallingThread<Value: Sendable>(_ read: StoreRead<Value>) -> CallingThreadRead<Value> {
        tryReadOnCallingThread(snapshot: read.snapshot, read.body)
    }

    public func performElsewhere<Value: Sendable>(_ read: StoreRead<Value>, completion: @escaping StoreCompletion<Value>) {
        if read.needsPrimary { return readFromPrimary(snapshot: read.snapshot, read.body, completion: completion) }
        self.read(snapshot: read.snapshot, read.body, completion: completion)
    }

    public func performLarge<Value: Sendable>(_ read: StoreRead<Value>, completion: @escaping StoreCompletion<Value>) {
        readLarge(snapshot: read.snapshot, read.body, completion: completion)
    }

    /// A store without threads of lower priority reads a large read as any other.
    public func readLarge<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value,
                                           completion: @escaping StoreCompletion<Value>) {
        read(snapshot: snapshot, body, completion: completion)
    }

    /// A read built as a value, on the store's readers.
    public func read<Value: Sendable>(_ read: StoreRead<Value>) async throws(StoreError) -> Value {
        try await self.read(snapshot: read.snapshot, read.body)
    }

    /// ``read(snapshot:_:completion:)``, awaited.
    public func read<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value)
        async throws(StoreError) -> Value {
        try await awaitCompletion { read(snapshot: snapshot, body, completion: $0) }
    }

    /// ``write(changing:_:completion:)``, awaited.
    public func write<Value: Sendable>(changing profile: ProfileName?, _ body: @escaping @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>)
        async throws(StoreError) -> Value {
        try await awaitCompletion { write(changing: profile, body, completion: $0) }
    }

    /// A write that may touch any profile, in a transaction of its own.
    func write<Value: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>)
        async throws(StoreError) -> Value {
        try await write(changing: nil, body)
    }

    func read<Value: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> Value) async throws(StoreError) -> Value {
        try await read(snapshot: true, body)
    }
}

/// What a write did: its value for the caller, the events it logged (published once it
/// commits), and how it changed the counter view, for a store that keeps counters in memory.
public struct WriteOutcome<Value> {
    public let value: Value
    public let events: [LoggedEvent]
    public let counterView: CounterViewChange?

    public init(_ value: Value, events: [LoggedEvent] = [], counterView: CounterViewChange? = nil) {
        self.value = value
        self.events = events
        self.counterView = counterView
    }
}

/// How a committed write changed what a profile's counter reads, for caches of it.
public enum CounterViewChange: Sendable, Equatable {
    /// The counter reads this state now.
    case committed(CounterState)
    /// The profile exists now (a cached "no such profile" is wrong); its counter did not change.
    case profileExists(ProfileName)
    /// The counter may read otherwise now, in a way the write did not compute (its default changed).
    case invalidated(ProfileName)
}

/// Bounds on what one profile may hold, enforced by the store algorithm.
public struct StoreLimits: Sendable, Equatable {
    /// Keys one profile may store.
    public var maxPreferencesPerProfile: Int
    /// Navigation sessions one profile may hold.
    public var maxSessionsPerProfile: Int
    /// Tombstones of ordinary keys kept per profile (their versions matter only while recent).
    public var keptTombstones: Int
    /// How long an `Idempotency-Key` is remembered: a retry within it gets the first answer.
    public var idempotencyWindow: Duration
    /// Keys remembered per profile at most; beyond it the oldest is forgotten first (a retry
    /// with it then runs as a new request). Sized from the keyed write rate a profile is
    /// promised the whole ``idempotencyWindow`` for: 4,096 keyed writes in 24 hours (one every
    /// 21 s on average, in bursts of any shape up to 4,096); a busier profile keeps its 4,096
    /// newest. With ``maxRecordedAnswerBytes`` this bounds what keyed writes add to a profile
    /// (about 10 MiB at most), whatever the client sends.
    public var maxIdempotencyKeysPerProfile = 4_096
    /// Keys remembered per access token at most, over every profile it wrote to; beyond it the
    /// oldest the token made is forgotten first. An admin token may write to any profile, so
    /// without it the bound per profile would multiply by the number of profiles: four
    /// profiles' worth. Writes without a token (the open mode) have only the bound per profile.
    public var maxIdempotencyKeysPerToken = 16_384
    /// The largest answer body recorded whole under a key; a larger one (a large value's, a
    /// patch of many keys) is recorded as its summary (``RecordedAnswer/bounded(maxBodyBytes:)``,
    /// which openapi.yaml's ReplaySummary describes beside every keyed write's answer). 2 KiB:
    /// a counter's, a session's or a small value's answer replays byte for byte; a record never
    /// holds the profile's state.
    public var maxRecordedAnswerBytes = 2 << 10
    /// Bytes one profile may hold (``QuotaSteps/usage(of:in:)``: its values, registered defaults,
    /// sessions and idempotency records; not its event log, bounded by ``maxEventLogBytes``); a write
    /// that would exceed it and grows the profile is refused
    /// (``StoreError/quotaExceeded(quota:usage:)``) and changes nothing. A write that frees or
    /// keeps bytes never is. 0: no quota.
    public var profileQuotaBytes = 32 << 20
    /// Bytes of events (their data, as logged) one profile's log keeps: a write whose events
    /// cross a sixteenth of it deletes the profile's oldest down to fifteen sixteenths, in its
    /// own transaction (``EventLogSteps``; the newest always stays), and the store's pruning
    /// trims to it what was logged otherwise (session expiry; an import's events, the
    /// profile's next writes do). Not counted in
    /// ``profileQuotaBytes``: a profile holds at most that much data and this much log.
    /// Subscribers further behind get a `reset`. 0: no bound in bytes.
    public var maxEventLogBytes = 8 << 20
    /// How long a navigation session may go unchanged before the store's pruning deletes it
    /// (logging a `navigation` event, `expire`).
    public var sessionIdleExpiry: Duration

    public init(maxPreferencesPerProfile: Int = 1_000, maxSessionsPerProfile: Int = 100, keptTombstones: Int = 1_000,
                idempotencyWindow: Duration = .seconds(86_400), sessionIdleExpiry: Duration = .seconds(30 * 86_400)) {
        self.maxPreferencesPerProfile = maxPreferencesPerProfile
        self.maxSessionsPerProfile = maxSessionsPerProfile
        self.keptTombstones = keptTombstones
        self.idempotencyWindow = idempotencyWindow
        self.sessionIdleExpiry = sessionIdleExpiry
    }
}

/// What every store enforces and how it keeps its event log, whatever the database.
public struct StorePolicy: Sendable, Equatable {
    public var limits: StoreLimits
    public var retention: EventRetention
    /// How often the store prunes its log.
    public var pruneInterval: Duration

    public init(limits: StoreLimits = StoreLimits(), retention: EventRetention = EventRetention(), pruneInterval: Duration = .seconds(60)) {
        self.limits = limits
        self.retention = retention
        self.pruneInterval = pruneInterval
    }
}
