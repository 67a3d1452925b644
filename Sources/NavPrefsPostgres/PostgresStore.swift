public import NavPrefsCore
public import NavPrefsStore
import Dispatch
import Foundation
import Synchronization

/// The shared store: several NavPrefs instances on one PostgreSQL database.
///
/// - Every operation is the store algorithm of ``TransactionalStore``: each write is one
///   transaction that first takes the profile's next event id (``PostgresTransaction``), whose
///   row lock serializes a profile's writes and orders their commits by id. Counters change with
///   one guarded statement, never a read and a write from Swift. The change, its event and a
///   `pg_notify` commit together.
/// - libpq blocks, so calls run on a small pool of threads with one connection each
///   (``PostgresPool``), never on Swift's cooperative pool.
/// - Events reach the feed from this store's writes right after their commit, and from other
///   instances' through one `LISTEN` connection (``PostgresListener``), in id order per profile
///   without gaps (``EventSequencer``).
/// - While PostgreSQL cannot be reached, calls fail with ``StoreError/unavailable(reason:)``;
///   connections are re-established in the background and service resumes by itself.
public final class PostgresStore: TransactionalStore {
    public struct Options: Sendable, Equatable {
        /// A libpq URL, `postgres://user:password@host:port/database?parameters`.
        public var url: String
        /// Limits and retention; every instance prunes the log (deletes are idempotent).
        public var policy: StorePolicy
        /// Connections (and threads) for calls; the listener has one more of its own.
        public var poolSize: Int
        /// Seconds to wait for a new connection before calls fail with 503.
        public var connectTimeoutSeconds = 5
        /// What this process may do to the database: an instance's full part, or a command's.
        public var access = StoreAccess.service

        public init(url: String, policy: StorePolicy = StorePolicy(), poolSize: Int = 8) {
            self.url = url
            self.policy = policy
            self.poolSize = poolSize
        }
    }

    public let options: Options
    public let feed = EventFeed()
    public var limits: StoreLimits { options.policy.limits }
    let pool = PostgresPool()
    /// Reads while the primary cannot serve them (see ``read(snapshot:_:)``).
    let standbyPool = PostgresPool()
    let primaryReads = PrimaryReadWatch()
    let listener: PostgresListener
    let sequencer: EventSequencer
    /// Profiles this instance logged events for since the last pruning (their log may be too long).
    let profilesWithNewEvents = Mutex<Set<ProfileName>>([])
    /// The maintenance thread's clock and its end (``startMaintenance()``, ``close()``).
    private let stopMaintenance = DispatchSemaphore(value: 0)
    private let maintenanceExited = DispatchSemaphore(value: 0)
    private let maintenanceStarted = Atomic<Bool>(false)
    /// A maintenance round is queued on the pool or running there.
    private let maintenanceRound = Atomic<Bool>(false)
    /// Given up by ``abandonConnecting()``: every connect of this store waits on it.
    private let abandonment = ConnectAbandonment()

    /// Records the options; ``start()`` connects.
    public init(_ options: Options) {
        self.options = options
        sequencer = EventSequencer(feed: feed)
        listener = PostgresListener()
    }

    /// Connects, checks what the database holds, migrates it (under an advisory lock) as
    /// `options.access` allows, and starts the pool; an instance (``StoreAccess/background``) also
    /// starts listening and the pruning thread.
    /// - Throws: ``StoreError/unavailable(reason:)`` when the database cannot be reached, has a
    ///   schema this build does not know, or may not be used this way (see ``StoreProbe/refusal(for:database:)``).
    public func start() throws(StoreError) {
        let url = options.url, timeout = options.connectTimeoutSeconds, access = options.access, abandonment = abandonment
        let connect: @Sendable () throws(PostgresError) -> PostgresConnection = { () throws(PostgresError) in
            try PostgresConnection(url: url, connectTimeoutSeconds: timeout, readOnly: !access.writes, abandonment: abandonment)
        }
        // A name of its own, so operators can tell the listener apart in pg_stat_activity.
        let connectListener: @Sendable () throws(PostgresError) -> PostgresConnection = { () throws(PostgresError) in
            try PostgresConnection(url: url, applicationName: "navprefs-listener", connectTimeoutSeconds: timeout,
                                   abandonment: abandonment)
        }
        do {
            let connection = try connect()
            // What the probe saw is what is migrated: no other instance's migration can be in
            // flight between the two.
            try PostgresSchema.withMigrationLock(connection, exclusive: access.mayMigrate) {
                let probe = try PostgresSchema.probe(connection)
                if let refusal = probe.refusal(for: access, database: "the PostgreSQL database") {
                    throw StoreError.unavailable(reason: refusal)
                }
                if access.mayMigrate && probe.schemaVersion < PostgresSchema.latestVersion { try PostgresSchema.migrate(connection) }
            }
            if access.background { try listener.start(connect: connectListener, sequencer: sequencer) }
        } catch {
            throw Self.storeError(error)
        }
        let connectStandby: @Sendable () throws(PostgresError) -> PostgresConnection = { () throws(PostgresError) in
            try PostgresConnection(url: url, applicationName: "navprefs-standby-reads", connectTimeoutSeconds: timeout, readOnly: true,
                                   sessionAttributes: "prefer-standby", abandonment: abandonment)
        }
        do {
            try pool.start(size: options.poolSize, connect: connect)
            if access.background { try standbyPool.start(size: Self.standbyPoolSize, connect: connectStandby) }
        } catch {
            listener.close()
            throw Self.storeError(error)
        }
        if access.background { startMaintenance() }
    }

    /// Gives up every connect of this store now and from now on: a stop requested while
    /// PostgreSQL does not answer ends the start (or a reconnect) at once, not at libpq's connect
    /// timeout. Called when the service's shutdown is requested.
    public func abandonConnecting() {
        abandonment.abandon()
    }

    /// What the database at `url` is (`navprefs check`), read on a read-only connection.
    /// - Throws: ``StoreError/unavailable(reason:)`` when it cannot be reached.
    public static func probe(url: String, connectTimeoutSeconds: Int = 5) throws(StoreError) -> StoreProbe {
        do {
            let connection = try PostgresConnection(url: url, connectTimeoutSeconds: connectTimeoutSeconds, readOnly: true)
            return try PostgresSchema.withMigrationLock(connection, exclusive: false) { try PostgresSchema.probe(connection) }
        } catch {
            throw storeError(error)
        }
    }

    /// Without a stream secret outside the database, anyone who can read its `secrets` table can
    /// sign stream tokens: said at start (the app decides whether one was given).
    public var startNotices: [String] { [] }

    public func close() async {
        stopMaintenance.signal()
        let maintenanceStarted = maintenanceStarted.exchange(false, ordering: .acquiringAndReleasing)
        await waitOffThePool { [pool, standbyPool, listener, maintenanceExited] in
            // The maintenance thread never waits for the pool, so it ends at once; a round it
            // queued runs before the pool closes its connections.
            if maintenanceStarted { maintenanceExited.wait() }
            pool.close()
            standbyPool.close()
            listener.close()
        }
    }

    public func eventLogBounds(of profile: ProfileName) async throws(StoreError) -> EventLogBounds {
        // A subscriber is starting: make sure the feed will have every id after the newest it reads.
        let watch = sequencer.beginBoundsRead(of: profile)
        let bounds: EventLogBounds
        do {
            bounds = try await readOnPrimary(snapshot: false) { transaction in try Self.eventLogBounds(of: profile, in: transaction) }
        } catch {
            if let watch { _ = sequencer.endBoundsRead(of: profile, watch, latest: nil) }
            throw error
        }
        if let watch, sequencer.endBoundsRead(of: profile, watch, latest: bounds.latest) {
            listener.requestCatchUp(of: profile)
        }
        return bounds
    }

    // MARK: Running the algorithm

    /// Runs `body` on a pool connection; it may run twice if the connection is lost. While the
    /// primary cannot serve it, on a standby (see PostgresStore+Standby.swift).
    public func read<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value,
                                      completion: @escaping StoreCompletion<Value>) {
        readFallingBack(snapshot: snapshot, body, completion: completion)
    }

    /// Runs `body` on a connection of `pool` (the primary's unless told otherwise); it may run
    /// twice if the connection is lost.
    func readOnPrimary<Value: Sendable>(snapshot: Bool, on pool: PostgresPool? = nil,
                                        _ body: @escaping @Sendable (any StoreTransaction) throws -> Value,
                                        completion: @escaping StoreCompletion<Value>) {
        (pool ?? self.pool).run(retry: .always, { connection in
            let transaction = PostgresTransaction(connection: connection)
            guard snapshot else { return try body(transaction) }
            return try connection.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { try body(transaction) }
        }, completion: completion)
    }

    /// Runs `body` in a transaction on a pool connection. Once it committed, the events it
    /// logged are published to the feed before this returns (see ``EventSequencer/committed(_:)``).
    /// A write of one profile joins the writes queued right behind it, of any profile, in one
    /// transaction (``PostgresBatch``): under load, many writes share one commit.
    public func write<Value: Sendable>(changing profile: ProfileName?, _ body: @escaping @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>,
                                       completion: @escaping StoreCompletion<Value>) {
        guard options.access.writes else {
            return completion(.failure(.unavailable(reason: "the PostgreSQL database was opened for reading only")))
        }
        guard let profile else {
            return pool.run(retry: .ifSafe, { connection in try self.commit(body, on: connection) }, completion: completion)
        }
        let write = PendingPostgresWrite(profile: profile, store: self, body: body, completion: completion)
        if !pool.submit(write) { completion(.failure(.closed)) }
    }

    /// Runs `body` in one transaction on `connection` (a pool thread's) and, once it committed,
    /// publishes its events: a write, and the store's own maintenance writes.
    func commit<Value>(_ body: (any StoreTransaction) throws -> WriteOutcome<Value>, on connection: PostgresConnection) throws
        -> Value {
        let sequencer = self.sequencer
        let outcome = try connection.transaction("BEGIN", { try body(PostgresTransaction(connection: connection)) },
                                                 committing: { sequencer.committing($0.events) },
                                                 notCommitted: { sequencer.notCommitted($0.events) })
        publish(outcome.events, on: connection)
        return outcome.value
    }

    /// Publishes the events of a committed transaction to the feed.
    func publish(_ events: [LoggedEvent], on connection: PostgresConnection) {
        for event in events {
            profilesWithNewEvents.withLock { _ = $0.insert(event.profile) }
            // The write is committed: failing to publish now must not fail it. The listener
            // publishes the event when its notification arrives, or after reconnecting.
            try? Self.publish(event, sequencer, on: connection)
        }
    }

    /// Publishes a committed event of this store's, first reading from the log any ids before it
    /// that the feed has not had yet.
    private static func publish(_ event: LoggedEvent, _ sequencer: EventSequencer, on connection: PostgresConnection) throws {
        guard case .fetch(var after) = sequencer.committed(event) else { return }
        for _ in 0..<4 {
            let events = try connection.events(of: event.profile, after: after, upTo: event.id)
            if sequencer.deliver(events, of: event.profile, coveringAfter: after) { return }
            guard let position = sequencer.position(of: event.profile), position < event.id else { return }
            after = position
        }
    }

    /// A round of maintenance every ``StorePolicy/pruneInterval``, queued on the pool (off every
    /// request's path), until the store closes, which joins the thread. The thread only keeps
    /// time: it queues a round and goes back to its clock, and queues none while the last one is
    /// still queued or running (a slow database gets one round at a time, not a backlog).
    private func startMaintenance() {
        let stop = stopMaintenance, pool = self.pool, interval = options.policy.pruneInterval
        maintenanceStarted.store(true, ordering: .releasing)
        startWorkerThread(name: "pg-maintenance", exited: maintenanceExited) { [weak self] in
            while stop.wait(timeout: .now() + .milliseconds(Int(clamping: max(1, interval.wholeMilliseconds)))) == .timedOut {
                guard let store = self else { return }
                guard store.maintenanceRound.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { continue }
                let queued = pool.submit { worker in
                    store.maintain(on: worker)
                    store.maintenanceRound.store(false, ordering: .releasing)
                }
                guard queued else { return }
            }
        }
    }

    /// One round of maintenance on a pool thread: pruning, then idle sessions expired in
    /// writes of their own (100 at a time), whose events reach every instance. Storage errors
    /// are retried at the next round.
    private func maintain(on worker: PostgresWorker) {
        let policy = options.policy
        _ = try? worker.perform(retry: .always) { connection in try prune(policy, on: connection) }
        _ = try? worker.perform(retry: .ifSafe) { connection in
            while try commit({ transaction in
                let events = try StoreMaintenance.expireIdleSessions(idleFor: policy.limits.sessionIdleExpiry, limit: 100, in: transaction)
                return WriteOutcome(events.count, events: events)
            }, on: connection) == 100 {}
        }
    }

    /// Any error from inside the store, as the ``StoreError`` callers see.
    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: error
        case let error as PostgresError: error.storeError
        default: .internal(reason: String(describing: error))
        }
    }
}
