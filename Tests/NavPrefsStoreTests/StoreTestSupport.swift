import Foundation
import HTTPTestClient
import NavPrefsCore
@testable import NavPrefsStore
import Synchronization
import Testing
@testable import NavPrefsSQLite
@testable import NavPrefsPostgres

/// The stores one contract test suite runs against: SQLite always, PostgreSQL whenever
/// `NAVPREFS_TEST_POSTGRES_URL` names a server (`scripts/lib/postgres.sh start` makes one).
enum StoreKind: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// SQLite, and PostgreSQL when a test server is configured.
    static var testCases: [StoreKind] { TestEnvironment.postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    var testDescription: String { rawValue }
}

enum TestEnvironment {
    /// A PostgreSQL URL whose user may create databases: each test gets a fresh one.
    static let postgresURL: String? = {
        let url = ProcessInfo.processInfo.environment["NAVPREFS_TEST_POSTGRES_URL"] ?? ""
        return url.isEmpty ? nil : url
    }()
}

/// The settings a test may change, for either store.
struct StoreSettings: Sendable {
    var durability = Durability.normal
    var maxPreferencesPerProfile = 1_000
    var maxSessionsPerProfile = 100
    var eventRetentionCount = 10_000
    var eventRetentionAge: Duration = .seconds(7 * 86_400)
    var pruneInterval: Duration = .seconds(60)
    /// PostgreSQL: connections per store (small, so parallel tests stay under max_connections).
    var poolSize = 3
    var idempotencyWindow: Duration = .seconds(86_400)
    var maxIdempotencyKeysPerToken = StoreLimits().maxIdempotencyKeysPerToken
    var maxIdempotencyKeysPerProfile = StoreLimits().maxIdempotencyKeysPerProfile
    var profileQuotaBytes = StoreLimits().profileQuotaBytes
    var maxEventLogBytes = StoreLimits().maxEventLogBytes
    var sessionIdleExpiry: Duration = .seconds(30 * 86_400)
    /// What the store may do to its database (the service's part by default).
    var access = StoreAccess.service
}

/// A fresh, empty database for one test: a file in its own temporary directory, or a PostgreSQL
/// database of its own (so that neither data nor notifications cross tests). `remove()` deletes it.
struct TestDatabase: Sendable {
    let kind: StoreKind
    /// SQLite: the directory holding the file. PostgreSQL: unused.
    let directory: URL
    /// PostgreSQL: the database's URL.
    let url: String
    let name: String

    var path: String { directory.appendingPathComponent("navprefs.sqlite").path }

    init(_ kind: StoreKind = .sqlite) throws {
        self.kind = kind
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("navprefs-store-\(UUID().uuidString)")
        name = "navprefs_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        switch kind {
        case .sqlite:
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            url = ""
        case .postgres:
            let base = try #require(TestEnvironment.postgresURL, "NAVPREFS_TEST_POSTGRES_URL is not set")
            var components = try #require(URLComponents(string: base), "NAVPREFS_TEST_POSTGRES_URL is not a URL")
            components.path = "/" + name
            url = try #require(components.string)
            try Self.admin { try $0.execute("CREATE DATABASE \(name)") }
        }
    }

    /// Opens (starts) a store on this database.
    func open(_ settings: StoreSettings = StoreSettings()) throws -> any TransactionalStore {
        var limits = StoreLimits(maxPreferencesPerProfile: settings.maxPreferencesPerProfile, maxSessionsPerProfile: settings.maxSessionsPerProfile,
                                 idempotencyWindow: settings.idempotencyWindow, sessionIdleExpiry: settings.sessionIdleExpiry)
        limits.maxIdempotencyKeysPerToken = settings.maxIdempotencyKeysPerToken
        limits.maxIdempotencyKeysPerProfile = settings.maxIdempotencyKeysPerProfile
        limits.profileQuotaBytes = settings.profileQuotaBytes
        limits.maxEventLogBytes = settings.maxEventLogBytes
        let policy = StorePolicy(
            limits: limits,
            retention: EventRetention(count: settings.eventRetentionCount, age: settings.eventRetentionAge),
            pruneInterval: settings.pruneInterval)
        let store: any TransactionalStore
        switch kind {
        case .sqlite:
            var options = SQLiteStore.Options(path: path, durability: settings.durability, policy: policy)
            options.access = settings.access
            store = SQLiteStore(options)
        case .postgres:
            var options = PostgresStore.Options(url: url, policy: policy, poolSize: settings.poolSize)
            options.access = settings.access
            store = PostgresStore(options)
        }
        try store.start()
        return store
    }

    /// Runs SQL on the database behind the store's back (an independent client).
    func execute(_ sql: String) throws {
        switch kind {
        case .sqlite:
            let output = try sqlite3(path, sql)
            try #require(output == "", "sqlite3: \(output)")
        case .postgres:
            try PostgresConnection(url: url).execute(sql)
        }
    }

    func remove() {
        switch kind {
        case .sqlite:
            try? FileManager.default.removeItem(at: directory)
        case .postgres:
            try? Self.admin { try $0.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        }
    }

    /// A connection to the database the test URL names, for creating and dropping databases.
    static func admin(_ body: (PostgresConnection) throws -> Void) throws {
        let url = try #require(TestEnvironment.postgresURL)
        try body(try PostgresConnection(url: url))
    }
}

/// Opens a store of `kind` on a fresh database for `body`, closes it and removes the database after.
@discardableResult
func withStore<T>(
    _ kind: StoreKind, _ settings: StoreSettings = StoreSettings(),
    _ body: (any TransactionalStore, TestDatabase) async throws -> T
) async throws -> T {
    // Creating, migrating and dropping a PostgreSQL database block for tens of milliseconds:
    // on threads of their own, so that parallel tests keep the cooperative pool.
    let database = try await onOwnThread { try TestDatabase(kind) }
    let store: any TransactionalStore
    do {
        store = try await onOwnThread { try database.open(settings) }
    } catch {
        _ = try? await onOwnThread { database.remove() }
        throw error
    }
    let result: Result<T, any Error>
    do { result = .success(try await body(store, database)) } catch { result = .failure(error) }
    await store.close()
    _ = try? await onOwnThread { database.remove() }
    return try result.get()
}


/// Opens a SQLite store on a fresh file for `body`, closes it and removes the file after.
@discardableResult
func withSQLiteStore<T>(
    durability: Durability = .normal,
    _ body: (SQLiteStore, TestDatabase) async throws -> T
) async throws -> T {
    let database = try TestDatabase(.sqlite)
    defer { database.remove() }
    let store = try SQLiteStore.started(.init(path: database.path, durability: durability))
    do {
        let result = try await body(store, database)
        await store.close()
        return result
    } catch {
        await store.close()
        throw error
    }
}

extension SQLiteStore {
    /// A store on `options`, started.
    static func started(_ options: Options) throws -> SQLiteStore {
        let store = SQLiteStore(options)
        try store.start()
        return store
    }
}

/// What both stores offer beyond the protocol: pruning the log on demand.
protocol EventLogPruning {
    func pruneEventLog() async throws(StoreError) -> Int
}

extension SQLiteStore: EventLogPruning {}
extension PostgresStore: EventLogPruning {}

func prune(_ store: any Store) async throws -> Int {
    let pruning = try #require(store as? any EventLogPruning)
    return try await pruning.pruneEventLog()
}

func profile(_ name: String) -> ProfileName {
    // Test names are literals known to be valid.
    (try? ProfileName(name)) ?? .default
}

func step(_ amount: Int64) -> CounterStep {
    (try? CounterStep(amount)) ?? .one
}

/// Runs Debian's sqlite3 shell on `path` (an independent reader of the file) and returns its output.
/// Runs `sql` with the sqlite3 command-line tool on the database at `path`; its standard output.
/// Waits up to 5 s for a lock the store holds (the tool's default is not to wait at all), and
/// throws when the tool fails: before, a "database is locked" went to standard error unseen, and
/// a test went on as if its UPDATE had been made (the periodic session expiry test, which races
/// the store's pruning every 100 ms, failed that way on a loaded machine).
func sqlite3(_ path: String, _ sql: String) throws -> String {
    let run = try runToEnd("/usr/bin/sqlite3", ["-bail", "-cmd", ".timeout 5000", path, sql],
                           environment: ProcessInfo.processInfo.environment)
    guard run.status == 0 else {
        throw TestClientError.malformed("sqlite3 exited with status \(run.status) on: \(sql.prefix(200)); output: \(run.output)")
    }
    return run.output
}

/// A value tasks of a test share.
final class Locked<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
}

extension PostgresStore {
    /// A store on `options`, started.
    static func started(_ options: Options) throws -> PostgresStore {
        let store = PostgresStore(options)
        try store.start()
        return store
    }
}

extension EventFeed {
    /// Calls `observer` with every event published from now on, on a thread of its own, as the
    /// HTTP layer's hub consumes the feed. The thread ends when the returned subscription is cancelled.
    @discardableResult
    func observe(_ observer: @escaping @Sendable ([LoggedEvent]) -> Void) -> FeedSubscription {
        let subscription = subscribe()
        let thread = Thread {
            while let events = subscription.next() { observer(events) }
        }
        thread.name = "test-feed-observer"
        thread.start()
        return subscription
    }
}
