public import NavPrefsCore
public import NavPrefsStore
import Foundation
import Synchronization

/// The embedded store: one SQLite file in WAL mode; light writes run on the event loop in its
/// turn (``TurnWrites``), the others on one writer thread with group commit (``SQLiteWriter``),
/// both on one write connection; a thread that flushes the log (``WALSyncer``, with
/// ``Durability/full``); reader threads; and a cache of recent counter states for reads that
/// need no I/O.
///
/// One process serves the file (enforced with a lock; commands beside it take none, see
/// ``StoreAccess``); several instances need PostgreSQL. Every
/// operation is the store algorithm of ``TransactionalStore``; this type holds only what is
/// SQLite's: its threads and connections, its schema, its pruning, and the counter cache (which
/// is right only for a store that sees every write).
public final class SQLiteStore: TransactionalStore, CounterCacheReading, TurnWriting {
    public struct Options: Sendable, Equatable {
        public var path: String
        public var durability: Durability
        public var policy: StorePolicy
        /// Reader threads, each with its own connection.
        public var readerCount = 2
        /// Reader threads for the reads too large for the event loop, below its priority
        /// (``performLarge(_:completion:)``), each with its own connection.
        public var largeReaderCount = 2
        /// Profiles whose counter state is kept in memory.
        public var cacheCapacity = 100_000
        /// Writes committed together at most.
        public var maxBatch = 256
        /// What this process may do to the file: the service's claim, or a command's lighter touch.
        public var access = StoreAccess.service
        /// Bytes of values a read on the calling thread (the event loop) may take before it is
        /// left for a reader (``tryReadOnCallingThread(snapshot:_:)``): reading and decoding them is what a
        /// read costs that thread.
        public var callingThreadReadBytes = 64 << 10
        /// Writes carrying more bytes than this are heavy: each commits alone, after the light
        /// writes queued with it (``SQLiteWriter``).
        public var heavyWriteBytes = 16 << 10

        public init(path: String, durability: Durability = .full, policy: StorePolicy = StorePolicy()) {
            self.path = path
            self.durability = durability
            self.policy = policy
        }
    }

    public let options: Options
    public let feed: EventFeed
    public var limits: StoreLimits { options.policy.limits }
    let writer = SQLiteWriter()
    let writeConnection = WriteConnection()
    let syncer = WALSyncer()
    let pipeline: CommitPipeline
    let turn: TurnWrites
    let readers = SQLiteReaders()
    /// Readers below the event loop's priority, for reads too large for it (and the rendering of
    /// their answers, which their completions do): apart from ``readers``, whose completions resume
    /// awaiting tasks (``lowerThreadPriority()``).
    let largeReaders = SQLiteReaders()
    let counters: CounterCache
    private let fileLock = Mutex<DatabaseFileLock?>(nil)
    /// What the start did that the log should say (a one-time `VACUUM`).
    private let notices = SharedState<[String]>([])
    /// The read-only connection of ``readOnCallingThread(snapshot:_:)``, for whichever thread holds the
    /// lock (the HTTP event loop; another caller finding it busy reads on a reader instead).
    private let callingThreadConnection = Mutex<CallingThreadConnection?>(nil)

    /// A connection that only the holder of ``callingThreadConnection``'s lock uses.
    private struct CallingThreadConnection: @unchecked Sendable {
        // Safety: only touched under the mutex, by one thread at a time.
        let connection: SQLiteConnection
    }

    /// Records the options; ``start()`` opens the file.
    public init(_ options: Options) {
        self.options = options
        let (feed, counters) = (EventFeed(), CounterCache(capacity: options.cacheCapacity))
        self.feed = feed
        self.counters = counters
        pipeline = CommitPipeline(feed: feed, counters: counters, syncer: options.durability == .full ? syncer : nil)
        turn = TurnWrites(connection: writeConnection, pipeline: pipeline, maxBatch: options.maxBatch)
    }

    /// Opens the database at `options.path` as `options.access` allows (the service creates,
    /// migrates and claims it; commands take it as they find it, see ``SQLiteOpening``) and
    /// starts the writer and reader threads.
    public func start() throws(StoreError) {
        let path = options.path, access = options.access
        let opening = try SQLiteOpening(path: path, access: access)
        defer { opening.setupLock?.release() }
        let policy = options.policy
        let pipeline = self.pipeline
        let migrates = opening.migrates
        let notices = self.notices
        if access.writes {
            do {
                try writer.start(open: {
                    let connection = try SQLiteConnection(path: path, readOnly: false, create: access.mayCreate)
                    // WAL is persistent in the file; synchronous and the timeout are per connection.
                    // The schema commits flushed (FULL), so that a power loss right after the start
                    // cannot leave a file without it; then NORMAL at either durability: with FULL
                    // the syncer flushes the log after each commit, off the committing thread
                    // (WALSyncer).
                    try connection.execute("""
                        \(SQLiteFreeSpace.pragmas)
                        PRAGMA journal_mode = WAL;
                        PRAGMA synchronous = FULL;
                        PRAGMA busy_timeout = 5000;
                        PRAGMA foreign_keys = OFF;
                        """)
                    if migrates {
                        try SQLiteSchema.migrate(connection)
                        if let notice = try SQLiteFreeSpace.useIncrementalVacuum(connection) { notices.withLock { $0.append(notice) } }
                    }
                    try connection.execute("PRAGMA synchronous = NORMAL")
                    return WriteContext(connection: connection, claimsProfiles: access.exclusive)
                }, connection: writeConnection, maxBatch: options.maxBatch, maintenanceInterval: options.policy.pruneInterval,
                   maintenance: { context in
                    // Storage errors here are retried at the next interval; writes report their own.
                    guard access.background else { return }
                    _ = try? Self.pruneInTransaction(context, policy)
                    // What pruning and the writes since freed goes back to the file system.
                    _ = try? SQLiteFreeSpace.returnFreePages(context.connection)
                    _ = try? Self.expireInTransaction(context, idle: policy.limits.sessionIdleExpiry) { effects in
                        _ = pipeline.committed([], effects: effects, context: context)
                    }
                }, pipeline: pipeline)
                if options.durability == .full { try syncer.start(walPath: path + "-wal", feed: feed) }
            } catch {
                writer.close()
                writeConnection.close()
                opening.claim?.release()
                throw error.storeError
            }
        } else {
            writer.close()  // a store that only reads: every write fails at once
        }
        do {
            let openReader: @Sendable () throws -> SQLiteConnection = {
                let connection = try SQLiteConnection(path: path, readOnly: true)
                try connection.execute("PRAGMA busy_timeout = 5000; PRAGMA query_only = 1;")
                return connection
            }
            try readers.start(count: options.readerCount, lowPriority: false, open: openReader)
            do {
                try largeReaders.start(count: options.largeReaderCount, lowPriority: true, open: openReader)
            } catch {
                readers.close()
                throw error
            }
        } catch {
            writer.close()
            syncer.close()
            writeConnection.close()
            opening.claim?.release()
            throw error.storeError
        }
        // Never waits for a lock (busy_timeout 0): a busy database sends the read to a reader,
        // which waits. Optional: without it every read goes to the readers.
        if let connection = try? SQLiteConnection(path: path, readOnly: true),
           (try? connection.execute("PRAGMA busy_timeout = 0; PRAGMA query_only = 1;")) != nil {
            callingThreadConnection.withLock { $0 = CallingThreadConnection(connection: connection) }
        }
        fileLock.withLock { $0 = opening.claim }
    }

    public var startNotices: [String] { fileLock.withLock { $0?.notices ?? [] } + notices.withLock { $0 } }

    /// Finishes queued writes, stops the threads and releases the file.
    ///
    /// Readers close first: the writer's connection, closing last, checkpoints the WAL into the
    /// database and removes it (read-only connections cannot), so a store stopped cleanly is one
    /// file, which copies and moves as one.
    public func close() async {
        await waitOffThePool { [self] in
            callingThreadConnection.withLock { $0 = nil }
            readers.close()
            largeReaders.close()
            writer.close()
            // The writer's last commits are answered after the last flush; then the connection
            // closes (checkpointing the log into the database).
            syncer.close()
            writeConnection.close()
            fileLock.withLock { lock in
                lock?.release()
                lock = nil
            }
        }
    }

    // MARK: Running the algorithm

    public func read<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value,
                                      completion: @escaping StoreCompletion<Value>) {
        readers.read(Self.readBody(snapshot: snapshot, body), completion: completion)
    }

    /// On a large reader (``largeReaders``), below the event loop's priority.
    public func readLarge<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value,
                                           completion: @escaping StoreCompletion<Value>) {
        largeReaders.read(Self.readBody(snapshot: snapshot, body), completion: completion)
    }

    private static func readBody<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value)
        -> @Sendable (SQLiteConnection) throws -> Value {
        { connection in
            let transaction = SQLiteTransaction(connection: connection, writer: nil)
            guard snapshot else { return try body(transaction) }
            return try connection.transaction { try body(transaction) }
        }
    }

    /// Reads on the calling thread, on a connection of its own: a read of a few rows costs
    /// microseconds from the page cache, less than handing it to a reader and back. `.elsewhere`
    /// (the caller then reads on a reader) when another thread holds that connection, when the
    /// store is closed, or when the database is locked for a moment (a checkpoint); never waits.
    /// `.tooLarge` as soon as the rows read hold more than ``Options/callingThreadReadBytes`` of text:
    /// what a read costs the calling thread grows with the bytes it reads and decodes, so a
    /// large profile's read stops there and goes to a reader.
    public func tryReadOnCallingThread<Value: Sendable>(snapshot: Bool, _ body: (any StoreTransaction) throws -> Value) -> CallingThreadRead<Value> {
        let budget = options.callingThreadReadBytes
        let outcome: CallingThreadRead<Value>? = callingThreadConnection.withLockIfAvailable { here in
            guard let connection = here?.connection else { return .elsewhere }
            let transaction = SQLiteTransaction(connection: connection, writer: nil)
            connection.rowBytesLeft = budget
            defer { connection.rowBytesLeft = nil }
            do {
                return .done(.success(snapshot ? try connection.transaction { try body(transaction) } : try body(transaction)))
            } catch let error as SQLiteError where error.isReadTooLargeHere {
                return .tooLarge
            } catch let error as SQLiteError where error.isTransientForReaders {
                return .elsewhere
            } catch {
                return .done(.failure(error.storeError))
            }
        }
        return outcome ?? .elsewhere
    }

    public func write<Value: Sendable>(changing profile: ProfileName?, _ body: @escaping @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>,
                                       completion: @escaping StoreCompletion<Value>) {
        write(changing: profile, weight: 0, bounded: false, body, completion: completion)
    }

    public func write<Value: Sendable>(changing profile: ProfileName?, weight: Int,
                                       _ body: @escaping @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>,
                                       completion: @escaping StoreCompletion<Value>) {
        write(changing: profile, weight: weight, bounded: false, body, completion: completion)
    }

    /// A light write whose work is bounded is taken by the calling thread's turn, when it has
    /// one, and runs when that turn ends (``TurnWrites``); every other write goes to the writer
    /// thread, which groups whatever is queued into one transaction whatever the profiles (a
    /// single writer waits for no other), the heavy ones apart (``SQLiteWriter``).
    public func write<Value: Sendable>(changing profile: ProfileName?, weight: Int, bounded: Bool,
                                       _ body: @escaping @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>,
                                       completion: @escaping StoreCompletion<Value>) {
        guard options.access.writes else {
            return completion(.failure(.unavailable(reason: "\(options.path) was opened for reading only")))
        }
        if let failed = syncer.failed { return completion(.failure(failed)) }
        let heavy = weight > options.heavyWriteBytes
        let job = PendingWrite(profile: profile?.rawValue, heavy: heavy, body: { transaction in try body(transaction) },
                               completion: completion)
        if bounded, !heavy, turn.run(job, writerIdle: writer.isIdle) { return }
        writer.submit(job)
    }

    public func beginTurn() { turn.begin() }

    public func endTurn() { turn.end() }

    public func startTurns(wake: @escaping @Sendable () -> Void) { turn.enableHolding(wake: wake) }

    public func stopTurns() { turn.disableHolding() }

    // MARK: The counter cache

    public func cachedCounter(of profile: ProfileName) -> CounterState? {
        switch counters.lookup(profile) {
        case .present(let state)?: state
        case .absent?: .fresh(profile)  // nobody wrote to it: a fresh suite
        case nil: nil
        }
    }

    /// The counter read that fills the cache with what it found, unless a write or an eviction
    /// came in between (see ``CounterCache``).
    public func counterRead(of profile: ProfileName) -> StoreRead<CounterState> {
        let counters = self.counters
        return StoreRead(snapshot: false) { transaction in
            // Noted before the statement reads: a write or eviction after it drops the fill.
            let generation = counters.generation
            let slot = try TransactionSteps.readSlot(WellKnownKey.counter, of: profile, in: transaction)
            counters.fill(profile, with: slot.map { .present(CounterState(profile: profile, slot: $0)) } ?? .absent, readAt: generation)
            return slot.map { CounterState(profile: profile, slot: $0) } ?? .fresh(profile)
        }
    }
}

extension SQLiteConnection {
    /// Runs `body` in a read transaction, so that several statements see one snapshot.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
    }
}
