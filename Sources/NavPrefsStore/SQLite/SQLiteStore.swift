public import NavPrefsCore
import CSQLite
import Foundation

/// The embedded store: one SQLite file in WAL mode, one writer thread with group commit,
/// reader threads, and a cache of recent counter states for reads that need no I/O.
///
/// One process owns the file (enforced with a lock); several instances need PostgreSQL.
public final class SQLiteStore: Store {
    public struct Options: Sendable, Equatable {
        public var path: String
        public var durability: Durability
        public var readerCount: Int
        /// Profiles whose counter state is kept in memory.
        public var cacheCapacity: Int
        /// Writes committed together at most.
        public var maxBatch: Int
        /// Keys one profile may store.
        public var maxPreferencesPerProfile: Int
        /// Navigation sessions one profile may hold.
        public var maxSessionsPerProfile: Int
        /// What the event log keeps: per profile at most this many of the newest events, and none
        /// older than ``eventRetentionAge``. Subscribers further behind get a `reset` event.
        public var eventRetentionCount: Int
        public var eventRetentionAge: Duration
        /// How often the log is pruned.
        public var pruneInterval: Duration

        var retention: EventRetention { EventRetention(count: eventRetentionCount, age: eventRetentionAge) }

        public init(path: String, durability: Durability = .full, readerCount: Int = 2,
                    cacheCapacity: Int = 100_000, maxBatch: Int = 256, maxPreferencesPerProfile: Int = 1_000,
                    maxSessionsPerProfile: Int = 100,
                    eventRetentionCount: Int = 10_000, eventRetentionAge: Duration = .seconds(7 * 86_400),
                    pruneInterval: Duration = .seconds(60)) {
            self.path = path
            self.durability = durability
            self.readerCount = readerCount
            self.cacheCapacity = cacheCapacity
            self.maxBatch = maxBatch
            self.maxPreferencesPerProfile = maxPreferencesPerProfile
            self.maxSessionsPerProfile = maxSessionsPerProfile
            self.eventRetentionCount = eventRetentionCount
            self.eventRetentionAge = eventRetentionAge
            self.pruneInterval = pruneInterval
        }
    }

    public let options: Options
    public let feed = EventFeed()
    let writer: SQLiteWriter
    let readers: SQLiteReaders
    let counters: CounterCache
    private let fileLock: DatabaseFileLock

    /// Opens (creating and migrating if needed) the database at `options.path`.
    public init(_ options: Options) throws(StoreError) {
        self.options = options
        // See csqlite_set_malloc_trim_threshold: keep up to 256 MiB of freed heap instead of
        // returning it to the kernel after every commit. Process-wide, and harmless to repeat.
        _ = csqlite_set_malloc_trim_threshold(256 << 20)
        let lock = try DatabaseFileLock(path: options.path)
        let path = options.path
        let synchronous = options.durability == .full ? "FULL" : "NORMAL"
        do {
            writer = try SQLiteWriter(open: {
                let connection = try SQLiteConnection(path: path, readOnly: false)
                // WAL is persistent in the file; synchronous and the timeout are per connection.
                try connection.execute("""
                    PRAGMA journal_mode = WAL;
                    PRAGMA synchronous = \(synchronous);
                    PRAGMA busy_timeout = 5000;
                    PRAGMA foreign_keys = OFF;
                    """)
                try SQLiteSchema.migrate(connection)
                return WriteContext(connection: connection)
            }, maxBatch: options.maxBatch, feed: feed, maintenanceInterval: options.pruneInterval) { [retention = options.retention] context in
                // Storage errors here are retried at the next interval; writes report their own.
                _ = try? Self.pruneInTransaction(context, retention)
            }
        } catch {
            lock.release()
            throw error.storeError
        }
        do {
            readers = try SQLiteReaders(count: options.readerCount) {
                let connection = try SQLiteConnection(path: path, readOnly: true)
                try connection.execute("PRAGMA busy_timeout = 5000; PRAGMA query_only = 1;")
                return connection
            }
        } catch {
            writer.close()
            lock.release()
            throw error.storeError
        }
        counters = CounterCache(capacity: options.cacheCapacity)
        fileLock = lock
    }

    public func ping() async throws(StoreError) {
        _ = try await readers.read { connection in try connection.queryFirst("SELECT 1") { $0.int64(0) } }
    }

    public func close() async {
        await waitOffThePool { [writer, readers, fileLock] in
            writer.close()
            readers.close()
            fileLock.release()
        }
    }

    public func eventLogBounds(of profile: ProfileName) async throws(StoreError) -> EventLogBounds {
        try await readers.read { connection in
            try connection.transaction {
                let latest = try connection.queryFirst(
                    "SELECT last_event_id FROM profiles WHERE name = ?1", .text(profile.rawValue)) { $0.int64(0) } ?? 0
                let earliest = try connection.queryFirst(
                    "SELECT min(id) FROM events WHERE profile = ?1", .text(profile.rawValue)) { $0.isNull(0) ? nil : $0.int64(0) }
                return EventLogBounds(earliest: (earliest ?? nil) ?? latest + 1, latest: latest)
            }
        }
    }

    public func events(of profile: ProfileName, after id: Int64, limit: Int) async throws(StoreError) -> [LoggedEvent] {
        try await readers.read { connection in
            try connection.query(
                "SELECT id, type, data, created_at FROM events WHERE profile = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
                .text(profile.rawValue), .integer(id), .integer(Int64(limit))
            ) { row in
                LoggedEvent(id: row.int64(0), profile: profile, type: EventType(rawValue: row.text(1)) ?? .reset,
                            data: row.text(2), timestamp: row.int64(3))
            }
        }
    }

    /// Milliseconds since the Unix epoch.
    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
