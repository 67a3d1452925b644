public import NavPrefsCore
import Dispatch
import Foundation
import Synchronization

/// The shared store: several NavPrefs instances on one PostgreSQL database.
///
/// - Every write is one transaction that first takes the profile's next event id with
///   `UPDATE profiles ... RETURNING` (creating the profile on its first write). That row lock
///   serializes a profile's writes and orders their commits by id; the statements after it see
///   everything committed before (READ COMMITTED takes a new snapshot per statement). Counters
///   change with one guarded `INSERT ... ON CONFLICT DO UPDATE ... RETURNING`, never a read and a
///   write from Swift. The change, its event and a `pg_notify` commit together.
/// - libpq blocks, so calls run on a small pool of threads with one connection each
///   (``PostgresPool``), never on Swift's cooperative pool.
/// - Events reach the feed from this store's writes right after their commit, and from other
///   instances' through one `LISTEN` connection (``PostgresListener``), in id order per profile
///   without gaps (``EventSequencer``).
/// - While PostgreSQL cannot be reached, calls fail with ``StoreError/unavailable(reason:)``;
///   connections are re-established in the background and service resumes by itself.
public final class PostgresStore: Store {
    public struct Options: Sendable, Equatable {
        /// A libpq URL, `postgres://user:password@host:port/database?parameters`.
        public var url: String
        /// Connections (and threads) for calls; the listener has one more of its own.
        public var poolSize: Int
        /// Keys one profile may store.
        public var maxPreferencesPerProfile: Int
        /// Navigation sessions one profile may hold.
        public var maxSessionsPerProfile: Int
        /// What the event log keeps: per profile at most this many of the newest events, and none
        /// older than ``eventRetentionAge``.
        public var eventRetentionCount: Int
        public var eventRetentionAge: Duration
        /// How often this instance prunes the log (every instance does; deletes are idempotent).
        public var pruneInterval: Duration
        /// Seconds to wait for a new connection before calls fail with 503.
        public var connectTimeoutSeconds: Int

        public init(url: String, poolSize: Int = 8, maxPreferencesPerProfile: Int = 1_000, maxSessionsPerProfile: Int = 100,
                    eventRetentionCount: Int = 10_000, eventRetentionAge: Duration = .seconds(7 * 86_400),
                    pruneInterval: Duration = .seconds(60), connectTimeoutSeconds: Int = 5) {
            self.url = url
            self.poolSize = poolSize
            self.maxPreferencesPerProfile = maxPreferencesPerProfile
            self.maxSessionsPerProfile = maxSessionsPerProfile
            self.eventRetentionCount = eventRetentionCount
            self.eventRetentionAge = eventRetentionAge
            self.pruneInterval = pruneInterval
            self.connectTimeoutSeconds = connectTimeoutSeconds
        }
    }

    public let options: Options
    public let feed = EventFeed()
    let pool: PostgresPool
    let listener: PostgresListener
    let sequencer: EventSequencer
    /// Profiles this instance logged events for since the last pruning (their log may be too long).
    let profilesWithNewEvents = Mutex<Set<ProfileName>>([])
    private let stopMaintenance = DispatchSemaphore(value: 0)

    /// Connects, migrates the database (under an advisory lock), and starts listening.
    /// - Throws: ``StoreError/unavailable(reason:)`` when the database cannot be reached or has a
    ///   schema this build does not know.
    public init(_ options: Options) throws(StoreError) {
        self.options = options
        let url = options.url, timeout = options.connectTimeoutSeconds
        let connect: @Sendable () throws(PostgresError) -> PostgresConnection = { () throws(PostgresError) in
            try PostgresConnection(url: url, connectTimeoutSeconds: timeout)
        }
        // A name of its own, so operators can tell the listener apart in pg_stat_activity.
        let connectListener: @Sendable () throws(PostgresError) -> PostgresConnection = { () throws(PostgresError) in
            try PostgresConnection(url: url, applicationName: "navprefs-listener", connectTimeoutSeconds: timeout)
        }
        do {
            try PostgresSchema.migrate(try connect())
        } catch {
            throw Self.storeError(error)
        }
        let sequencer = EventSequencer(feed: feed)
        self.sequencer = sequencer
        do {
            listener = try PostgresListener(connect: connectListener, sequencer: sequencer)
        } catch {
            throw Self.storeError(error)
        }
        do {
            pool = try PostgresPool(size: options.poolSize, connect: connect)
        } catch {
            listener.close()
            throw Self.storeError(error)
        }
        startMaintenance()
    }

    public func close() async {
        stopMaintenance.signal()
        await waitOffThePool { [pool, listener] in
            pool.close()
            listener.close()
        }
    }

    /// Always `nil`: another instance may have changed any counter, so memory cannot answer.
    public func cachedCounter(of profile: ProfileName) -> CounterLookup? { nil }

    public func ping() async throws(StoreError) {
        _ = try await read { connection in try connection.query("SELECT 1") }
    }

    public func eventLogBounds(of profile: ProfileName) async throws(StoreError) -> EventLogBounds {
        // A subscriber is starting: make sure the feed will have every id after the newest it reads.
        let watch = sequencer.beginBoundsRead(of: profile)
        let bounds: EventLogBounds
        do {
            bounds = try await read { connection in
                let row = try connection.queryFirst("""
                    SELECT (SELECT last_event_id FROM profiles WHERE name = $1), (SELECT min(id) FROM events WHERE profile = $1)
                    """, .text(profile.rawValue))
                let latest = try row?.optionalInt64(0) ?? 0
                return EventLogBounds(earliest: try row?.optionalInt64(1) ?? latest + 1, latest: latest)
            }
        } catch {
            if let watch { _ = sequencer.endBoundsRead(of: profile, watch, latest: nil) }
            throw error
        }
        if let watch, sequencer.endBoundsRead(of: profile, watch, latest: bounds.latest) {
            listener.requestCatchUp(of: profile)
        }
        return bounds
    }

    public func events(of profile: ProfileName, after id: Int64, limit: Int) async throws(StoreError) -> [LoggedEvent] {
        try await read { connection in
            try Self.readEvents(of: profile, after: id, limit: limit, on: connection)
        }
    }

    // MARK: Running calls

    /// Runs `body` on a pool connection; it may run twice if the connection is lost.
    func read<Value: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> Value) async throws(StoreError) -> Value {
        try await pool.run(retry: .always, body)
    }

    /// Runs `body` in one transaction on a pool connection. Once it committed, the event it
    /// logged is published to the feed before this returns (see ``EventSequencer/committed(_:)``).
    func write<Value: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> Written<Value>) async throws(StoreError) -> Value {
        let sequencer = self.sequencer
        return try await pool.run(retry: .ifSafe) { connection in
            let outcome = try connection.transaction { try body(connection) }
            if let event = outcome.event {
                self.profilesWithNewEvents.withLock { _ = $0.insert(event.profile) }
                // The write is committed: failing to publish now must not fail it. The listener
                // publishes the event when its notification arrives, or after reconnecting.
                try? Self.publish(event, sequencer, on: connection)
            }
            return outcome.value
        }
    }

    /// Publishes a committed event of this store's, first reading from the log any ids before it
    /// that the feed has not had yet.
    private static func publish(_ event: LoggedEvent, _ sequencer: EventSequencer, on connection: PostgresConnection) throws {
        guard case .fetch(var after) = sequencer.committed(event) else { return }
        for _ in 0..<4 {
            let events = try readEvents(of: event.profile, after: after, upTo: event.id, on: connection)
            if sequencer.deliver(events, of: event.profile, coveringAfter: after) { return }
            guard let position = sequencer.position(of: event.profile), position < event.id else { return }
            after = position
        }
    }

    /// A pruning every ``Options/pruneInterval`` on a pool connection, until the store closes.
    private func startMaintenance() {
        let stop = stopMaintenance, pool = self.pool, interval = options.pruneInterval
        let retention = EventRetention(count: options.eventRetentionCount, age: options.eventRetentionAge)
        let thread = Thread { [weak self] in
            while stop.wait(timeout: .now() + .milliseconds(Int(clamping: max(1, interval.wholeMilliseconds)))) == .timedOut {
                guard let store = self else { return }
                let done = DispatchSemaphore(value: 0)
                let submitted = pool.submit { worker in
                    // Storage errors are retried at the next interval.
                    _ = try? worker.perform(retry: .always) { connection in try store.prune(retention, on: connection) }
                    done.signal()
                }
                guard submitted else { return }
                done.wait()
            }
        }
        thread.name = "postgres-maintenance"
        thread.start()
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

/// What a write job hands back from its transaction: its result and the event it logged.
struct Written<Value: Sendable>: Sendable {
    let value: Value
    let event: LoggedEvent?

    init(_ value: Value, event: LoggedEvent?) {
        self.value = value
        self.event = event
    }
}
