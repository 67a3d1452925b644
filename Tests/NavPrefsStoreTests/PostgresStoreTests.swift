import Foundation
import HTTPTestClient
import NavPrefsCore
@testable import NavPrefsStore
import Synchronization
import Testing
@testable import NavPrefsPostgres
import StoreTestSupport

/// What only the PostgreSQL store has: several instances on one database, events that cross
/// them, lost connections, migrations under an advisory lock. Each test has a database of its own.
@Suite("PostgreSQL store: instances, events across them, lost connections",
       .enabled(if: TestEnvironment.postgresURL != nil, "set NAVPREFS_TEST_POSTGRES_URL (scripts/lib/postgres.sh start)"))
struct PostgresStoreTests {
    /// Two stores on one fresh database: two instances of the service.
    func withInstances<T>(_ settings: StoreSettings = StoreSettings(), urlB: ((TestDatabase) throws -> String)? = nil,
                          _ body: (PostgresStore, PostgresStore, TestDatabase) async throws -> T) async throws -> T {
        // Connecting, migrating, creating and dropping block: on threads of their own (see onOwnThread).
        let database = try await onOwnThread { try TestDatabase(.postgres) }
        let a: PostgresStore, b: PostgresStore
        do {
            let urlOfB = try urlB?(database) ?? database.url
            a = try await onOwnThread { try PostgresStore.started(.init(url: database.url, poolSize: settings.poolSize)) }
            do {
                b = try await onOwnThread { try PostgresStore.started(.init(url: urlOfB, poolSize: settings.poolSize)) }
            } catch {
                await a.close()
                throw error
            }
        } catch {
            _ = try? await onOwnThread { database.remove() }
            throw error
        }
        let result: Result<T, any Error>
        do { result = .success(try await body(a, b, database)) } catch { result = .failure(error) }
        await a.close()
        await b.close()
        _ = try? await onOwnThread { database.remove() }
        return try result.get()
    }

    @Test("2 x 200 concurrent increments split across two instances add exactly 400, each answer a distinct value")
    func incrementsAcrossInstances() async throws {
        try await withInstances(StoreSettings(poolSize: 4)) { a, b, _ in
            let p = profile("shared")
            let values = try await withThrowingTaskGroup(of: Int64.self) { group in
                for index in 0..<400 {
                    let store = index.isMultiple(of: 2) ? a : b
                    group.addTask { try await store.apply(.increment(.one), toCounterOf: p, if: nil).state.counter.value }
                }
                return try await group.reduce(into: [Int64]()) { $0.append($1) }
            }
            #expect(values.sorted() == Array(1...400))
            #expect(try await a.counter(of: p).counter.value == 400)
            #expect(try await b.counter(of: p).version == Version(400))
            #expect(try await b.events(of: p, after: 0, limit: 1000).map(\.id) == Array(1...400))
        }
    }

    @Test("40 concurrent pushes split across two instances all apply: the edit runs on the row locked FOR UPDATE")
    func sessionEditsAcrossInstances() async throws {
        try await withInstances { a, b, _ in
            let p = profile("nav")
            let id = try await a.createSession(NavigationSession(root: SessionStoreTests.screen("root")), of: p).state.id
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    let store = index.isMultiple(of: 2) ? a : b
                    group.addTask { _ = try await store.updateSession(id, of: p, if: nil, SessionStoreTests.push(SessionStoreTests.screen("s\(index)"))) }
                }
                try await group.waitForAll()
            }
            let final = try await b.session(id, of: p)
            #expect(final.session.stack.count == 41)
            #expect(final.version == Version(41))
        }
    }

    @Test("a write through one instance reaches the other's feed, in well under a second")
    func eventCrossesInstances() async throws {
        try await withInstances { a, b, _ in
            let p = profile("fonts")
            let received = Locked<[(LoggedEvent, ContinuousClock.Instant)]>([])
            b.feed.observe { events in
                let now = ContinuousClock.now
                received.withLock { $0 += events.filter { $0.profile == p }.map { ($0, now) } }
            }
            let probe = FeedProbe(b, p)
            try await probe.start()
            let sent = ContinuousClock.now
            let change = try await a.setFont(try FontSettings.settingSlider(to: 4), of: p, if: nil)
            try await probe.waitUntil(change.eventID)
            let first = try #require(received.withLock { $0.first })
            #expect(first.0.type == .refresh)
            #expect(first.0.id == change.eventID)
            #expect(first.1 - sent < .seconds(1))
            #expect(probe.gaps.isEmpty)
        }
    }

    @Test("subscribers starting at any moment on either instance miss no id while both instances write")
    func feedNeverSkips() async throws {
        try await withInstances(StoreSettings(poolSize: 4)) { a, b, _ in
            let profiles = ["p0", "p1", "p2"].map(profile)
            let probes = Locked<[FeedProbe]>([])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<6 {
                    let store = writer.isMultiple(of: 2) ? a : b
                    group.addTask {
                        for round in 0..<60 {
                            let p = profiles[(writer + round) % profiles.count]
                            _ = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
                        }
                    }
                }
                group.addTask {
                    for round in 0..<30 {
                        let probe = FeedProbe(round.isMultiple(of: 2) ? a : b, profiles[round % profiles.count])
                        probes.withLock { $0.append(probe) }
                        try await probe.start()
                        try await Task.sleep(for: .milliseconds(Int.random(in: 0...15)))
                    }
                }
                try await group.waitForAll()
            }
            for probe in probes.withLock({ $0 }) {
                let latest = try await a.eventLogBounds(of: probe.profile).latest
                try await probe.waitUntil(latest)
                #expect(probe.gaps.isEmpty, "\(probe.profile): skipped after \(probe.gaps)")
            }
        }
    }

    @Test("after its connections are killed, an instance answers again at once and its listener catches up from the log")
    func connectionsKilled() async throws {
        try await withInstances { a, b, database in
            let p = profile("resilient")
            _ = try await a.apply(.increment(.one), toCounterOf: p, if: nil)
            let probe = FeedProbe(b, p)
            try await probe.start()
            try terminateBackends(of: database)
            for _ in 0..<20 { _ = try await a.apply(.increment(.one), toCounterOf: p, if: nil) }
            try await probe.waitUntil(21)
            #expect(probe.gaps.isEmpty)
            // Idle pool connections the server closed are replaced before the write is sent.
            try terminateBackends(of: database)
            #expect(try await b.apply(.increment(.one), toCounterOf: p, if: nil).state.counter.value == 22)
            #expect(try await b.counter(of: p).counter.value == 22)
        }
    }

    @Test("while an instance cannot reach PostgreSQL its calls fail with unavailable; it resumes by itself and catches up")
    func outageAndRecovery() async throws {
        // Instance B logs in as a role of its own, so that B alone can be shut out.
        let role = "navprefs_b_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try TestDatabase.admin { try $0.execute("CREATE ROLE \(role) LOGIN SUPERUSER") }
        defer { try? TestDatabase.admin { try $0.execute("DROP ROLE IF EXISTS \(role)") } }
        try await withInstances(urlB: { database in
            var components = try #require(URLComponents(string: database.url))
            components.user = role
            return try #require(components.string)
        }) { a, b, _ in
            let p = profile("outage")
            let probe = FeedProbe(b, p)
            try await probe.start()
            _ = try await a.apply(.increment(.one), toCounterOf: p, if: nil)
            try await probe.waitUntil(1)

            try TestDatabase.admin { admin in
                try admin.execute("ALTER ROLE \(role) NOLOGIN")
                try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'")
            }
            var failures = 0
            for _ in 0..<5 {
                do throws(StoreError) {
                    _ = try await b.counter(of: p)
                } catch {
                    guard case .unavailable = error else { throw error }
                    failures += 1
                }
            }
            #expect(failures == 5, "every call fails with unavailable (503), none crashes or hangs")
            await #expect(throws: StoreError.self) { try await b.ping() }
            // Meanwhile A goes on; B's listener cannot hear it.
            for _ in 0..<10 { _ = try await a.apply(.increment(.one), toCounterOf: p, if: nil) }

            try TestDatabase.admin { try $0.execute("ALTER ROLE \(role) LOGIN") }
            let back = ContinuousClock.now
            var answered = false
            while !answered && ContinuousClock.now - back < .seconds(10) {
                answered = (try? await b.ping()) != nil
                if !answered { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(answered)
            #expect(ContinuousClock.now - back < .seconds(5), "backoff stays at 2 s or less")
            try await probe.waitUntil(11)
            #expect(probe.gaps.isEmpty, "the events written during the outage came from the log, in order")
            #expect(try await b.apply(.increment(.one), toCounterOf: p, if: nil).state.counter.value == 12)
        }
    }

    /// Issue 30: a probe that ran between another instance's `CREATE TABLE navprefs_migrations`
    /// and the commit of its first migration saw no version, then `profiles`, and refused the
    /// database as another program's. Five instances on a new database, twenty times.
    @Test("instances starting together on a new database all serve, and migrate once, under the advisory lock")
    func concurrentMigrations() async throws {
        for round in 1...20 {
            let database = try await onOwnThread { try TestDatabase(.postgres) }
            defer { database.remove() }
            let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
                for _ in 0..<5 { group.addTask { try await onOwnThread { try PostgresStore.started(.init(url: database.url, poolSize: 1)) } } }
                return try await group.reduce(into: [PostgresStore]()) { $0.append($1) }
            }
            for store in stores { #expect(try await store.counter(of: .default) == .fresh(.default), "round \(round)") }
            let versions = try PostgresConnection(url: database.url).query("SELECT version FROM navprefs_migrations ORDER BY version")
            #expect(try versions.map { try $0.int64(0) } == PostgresSchema.migrations.map { Int64($0.version) }, "round \(round)")
            for store in stores { await store.close() }
        }
    }

    /// The interleaving behind issue 30's refusal, made certain: another instance holds the
    /// migration lock and the database shows what a probe spread over two statements could see
    /// (`navprefs_migrations` with no version yet, `profiles` already there). A starting instance
    /// waits for the lock before it probes, instead of calling the database another program's.
    @Test("a start waits for another instance's migration before it probes")
    func probeWaitsForMigration() async throws {
        let database = try await onOwnThread { try TestDatabase(.postgres) }
        defer { database.remove() }
        let migrating = try PostgresConnection(url: database.url)
        try migrating.query("SELECT pg_advisory_lock($1)", .integer(PostgresSchema.migrationLock))
        try PostgresSchema.migrate(migrating, upTo: 1)
        try migrating.execute("DELETE FROM navprefs_migrations")
        let starting = Task { try await onOwnThread { try PostgresStore.started(.init(url: database.url, poolSize: 1)) } }
        let waited = try await waitForAdvisoryLockWait(in: database)
        #expect(waited, "the starting instance waits on the migration lock")
        let first = PostgresSchema.migrations[0]
        try migrating.query("INSERT INTO navprefs_migrations (version, summary) VALUES ($1, $2)",
                            .integer(Int64(first.version)), .text(first.summary))
        try migrating.query("SELECT pg_advisory_unlock($1)", .integer(PostgresSchema.migrationLock))
        let store = try await starting.value
        #expect(try await store.counter(of: .default) == .fresh(.default))
        let versions = try migrating.query("SELECT version FROM navprefs_migrations ORDER BY version")
        #expect(try versions.map { try $0.int64(0) } == PostgresSchema.migrations.map { Int64($0.version) })
        await store.close()
    }

    /// Whether a session of `database` comes to wait on an advisory lock within 5 s.
    private func waitForAdvisoryLockWait(in database: TestDatabase) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            var waiting: Int64 = 0
            try TestDatabase.admin {
                waiting = try $0.queryFirst("""
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = '\(database.name)' AND wait_event_type = 'Lock' AND wait_event = 'advisory'
                    """)?.int64(0) ?? 0
            }
            if waiting > 0 { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test("a database with tables named like NavPrefs' but no schema version is refused and left alone")
    func foreignTables() async throws {
        let database = try TestDatabase(.postgres)
        defer { database.remove() }
        try database.execute("CREATE TABLE profiles (mine integer); INSERT INTO profiles VALUES (1);")
        #expect(throws: StoreError.self) { try PostgresStore.started(.init(url: database.url, poolSize: 1)) }
        let rows = try PostgresConnection(url: database.url).query("SELECT mine FROM profiles")
        #expect(try rows.map { try $0.int64(0) } == [1])
    }

    @Test("a server that cannot be reached at start is reported as unavailable, quickly")
    func unreachableAtStart() async throws {
        let started = ContinuousClock.now
        #expect {
            try PostgresStore.started(.init(url: "postgresql://postgres@127.0.0.1:1/navprefs?sslmode=disable", poolSize: 1))
        } throws: { error in
            guard case .unavailable? = error as? StoreError else { return false }
            return true
        }
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    /// Ends every server connection to `database` but the caller's.
    func terminateBackends(of database: TestDatabase) throws {
        try TestDatabase.admin {
            try $0.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database.name)' AND pid <> pg_backend_pid()")
        }
    }
}

/// A subscriber as the HTTP layer runs one (``Subscriber``): it buffers the feed's events from
/// the moment it registers, reads the log bounds, then takes every event with an id above the
/// newest it has. It records where an id was skipped, which a real subscriber never notices.
final class FeedProbe: Sendable {
    struct State {
        var lastID: Int64?
        var pending: [Int64] = []
        var gaps: [Int64] = []
    }

    let store: any Store
    let profile: ProfileName
    private let state = Mutex(State())

    init(_ store: any Store, _ profile: ProfileName) {
        self.store = store
        self.profile = profile
        store.feed.observe { [weak self] events in
            guard let self else { return }
            for event in events where event.profile == profile { self.take(event.id) }
        }
    }

    /// Reads the bounds and starts taking events after their newest id.
    func start() async throws {
        let latest = try await store.eventLogBounds(of: profile).latest
        state.withLock { state in
            state.lastID = latest
            let pending = state.pending
            state.pending = []
            for id in pending { Self.take(id, &state) }
        }
    }

    private func take(_ id: Int64) {
        state.withLock { state in
            guard state.lastID != nil else { return state.pending.append(id) }
            Self.take(id, &state)
        }
    }

    private static func take(_ id: Int64, _ state: inout State) {
        guard let last = state.lastID, id > last else { return }
        if id != last + 1 { state.gaps.append(last) }
        state.lastID = id
    }

    var gaps: [Int64] { state.withLock { $0.gaps } }

    /// Waits (at most 10 s) until the probe has taken `id`.
    func waitUntil(_ id: Int64) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while (state.withLock { $0.lastID ?? 0 }) < id {
            guard ContinuousClock.now < deadline else {
                Issue.record("\(profile): the feed stopped at \(state.withLock { $0.lastID ?? 0 }), expected \(id)")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

extension PostgresStoreTests {
    @Test("a database at schema 5 migrates to 6: each kept event gets its size and its place in its profile's log")
    func migrationCountsEventBytes() async throws {
        let database = try TestDatabase(.postgres)
        defer { database.remove() }
        let connection = try PostgresConnection(url: database.url)
        try PostgresSchema.migrate(connection, upTo: 5)
        try connection.execute("""
            INSERT INTO profiles (name, created_at, last_event_id) VALUES ('old', 0, 5), ('two', 0, 2);
            INSERT INTO events VALUES ('old', 3, 'counter', '{"a":1}', 0), ('old', 4, 'counter', '{"caf\u{E9}":1}', 0),
                                      ('old', 5, 'counter', '{}', 0), ('two', 1, 'counter', '{"x":"yz"}', 0), ('two', 2, 'counter', '{}', 0);
            """)
        let store = try PostgresStore.started(.init(url: database.url, poolSize: 1))
        let rows = try connection.query("SELECT profile, id, log_offset, log_size FROM events ORDER BY profile, id")
        #expect(try rows.map { "\(try $0.text(0))|\(try $0.int64(1))|\(try $0.int64(2))|\(try $0.int64(3))" }
                == ["old|3|0|7", "old|4|7|11", "old|5|18|2", "two|1|0|10", "two|2|10|2"])
        let listing = try await store.profiles(after: nil, limit: 10).profiles
        #expect(listing.first { $0.name == NavPrefsStoreTests.profile("old") }?.eventLogBytes == 20)
        #expect(listing.first { $0.name == NavPrefsStoreTests.profile("two") }?.eventLogBytes == 12)
        _ = try await store.apply(.increment(.one), toCounterOf: NavPrefsStoreTests.profile("old"), if: nil)
        #expect(try connection.queryFirst("SELECT log_offset FROM events WHERE profile = 'old' AND id = 6")?.int64(0) == 20)
        await store.close()
    }
}
