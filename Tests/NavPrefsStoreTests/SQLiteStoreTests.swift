import Foundation
import NavPrefsCore
import NavPrefsJSON
@testable import NavPrefsStore
import Testing
@testable import NavPrefsSQLite
import StoreTestSupport

/// What only the embedded store has: the in-memory counter cache, the file lock, the file's
/// identity, durability settings and migrations of older files.
@Suite("SQLite store: cache, file ownership, durability settings, migrations")
struct SQLiteStoreTests {
    /// A file as an older build left it: the schema up to `version` (made without incremental
    /// vacuum when `autoVacuum` is false), in WAL mode, with `sql` run on it.
    static func olderDatabase(version: Int, autoVacuum: Bool = true, _ sql: String = "") throws -> TestDatabase {
        let database = try TestDatabase()
        let connection = try SQLiteConnection(path: database.path, readOnly: false)
        try connection.execute((autoVacuum ? "" : "PRAGMA auto_vacuum = NONE; ") + "PRAGMA journal_mode = WAL")
        try SQLiteSchema.migrate(connection, upTo: version)
        if !sql.isEmpty { try connection.execute(sql) }
        return database
    }

    @Test("the writes of an increment, a navigation step and a keyed retry open no temporary b-tree: SQLite opened and closed one per RETURNING, per INSERT ... SELECT reading the table it writes and per IN (SELECT ...), 7.7 per increment and 6 % of its CPU")
    func writeStatementsOpenNoTemporaryTable() throws {
        let database = try Self.olderDatabase(version: SQLiteSchema.latestVersion)
        let connection = try SQLiteConnection(path: database.path, readOnly: false)
        let readingBack: [StoreStatement] = [.insertSession, .updateSession, .claimIdempotencyKey, .deleteToken]
        let texts = [SQLiteStatements.createProfile, SQLiteStatements.claimEventID, SQLiteStatements.applyCounter, SQLiteStatements.appendEvent]
            + readingBack.map(SQLiteStatements.sql)
        for text in texts {
            // Each statement of the text as written (one per `;` at a line's end), explained
            // with its parameters (up to the highest it names) bound to NULL.
            let statements = text.components(separatedBy: ";\n")
            #expect(text == SQLiteStatements.createProfile || statements.count > 1, "the write reads back what it wrote in a statement of its own")
            for statement in statements {
                let parameters = (1...9).last { statement.contains("?\($0)") || statement.contains("$\($0)") } ?? 0
                let explained = try SQLiteStatement(sql: "EXPLAIN " + statement, connection: connection)
                try explained.bind(Array(repeating: .null, count: parameters))
                var opcodes: [String] = []
                while try explained.step() { opcodes.append(SQLiteRow(statement: explained.handle).text(1)) }
                #expect(opcodes.contains("Halt"), "EXPLAIN listed the program")
                #expect(!opcodes.contains("OpenEphemeral"), "a temporary b-tree in: \(statement)")
                #expect(!opcodes.contains("OpenAutoindex"), "an automatic index in: \(statement)")
            }
        }
    }

    @Test("the cache answers reads after writes, and never goes back to an older version")
    func cacheCoherence() async throws {
        try await withSQLiteStore { store, _ in
            let p = profile("cache")
            #expect(store.cachedCounter(of: p) == nil)
            #expect(try await store.counter(of: p) == .fresh(p), "nobody wrote to it: a fresh suite")
            #expect(store.cachedCounter(of: p) == .fresh(p))
            let change = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
            #expect(store.cachedCounter(of: p) == change.state)
            for _ in 0..<50 {
                async let read = store.counter(of: p)
                let written = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
                _ = try await read
                guard let cached = store.cachedCounter(of: p) else {
                    Issue.record("cache lost the profile")
                    return
                }
                #expect(cached.version >= written.state.version)
            }
        }
    }

    @Test("the database is refused to a second store while one has it open")
    func exclusiveOwner() async throws {
        try await withSQLiteStore { _, database in
            #expect(throws: StoreError.self) { try SQLiteStore.started(.init(path: database.path)) }
        }
    }

    /// Issue 13 item 3: the files were 0644, so every local account could read every profile
    /// and the stream-token key. The store makes them 0600 whatever the process' umask.
    @Test("the database, its WAL and shared memory are created 0600 whatever the umask")
    func filesOwnerOnly() async throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        try await withSQLiteStore { store, database in
            _ = try await store.apply(.increment(.one), toCounterOf: profile("perm"), if: nil)
            for file in [database.path, database.path + "-wal", database.path + "-shm"] {
                #expect(try Self.mode(of: file) == 0o600, "\(file)")
            }
            #expect(store.startNotices.isEmpty)
        }
    }

    @Test("files found readable by others are tightened to 0600, and the start says so")
    func widerFilesTightened() async throws {
        let database = try TestDatabase()
        defer { database.remove() }
        do {
            let store = try SQLiteStore.started(.init(path: database.path))
            _ = try await store.apply(.increment(.one), toCounterOf: profile("perm"), if: nil)
            await store.close()
        }
        for file in [database.path, database.path + "-wal", database.path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            #expect(chmod(file, 0o644) == 0)
        }
        let store = try SQLiteStore.started(.init(path: database.path))
        #expect(try Self.mode(of: database.path) == 0o600)
        #expect(store.startNotices.first?.hasSuffix("was readable or writable by others (mode 644); it is 0600 now") == true, "\(store.startNotices)")
        #expect(try await store.counter(of: profile("perm")).counter.value == 1, "and the data is as it was")
        await store.close()
    }

    static func mode(of path: String) throws -> mode_t {
        var status = stat()
        guard stat(path, &status) == 0 else { throw StoreError.unavailable(reason: "no \(path)") }
        return status.st_mode & 0o777
    }

    @Test("a SQLite file that is not NavPrefs' is refused, and left alone")
    func foreignDatabase() async throws {
        let database = try TestDatabase()
        defer { database.remove() }
        try #require(try sqlite3(database.path, "CREATE TABLE mine (x); INSERT INTO mine VALUES (1);") == "")
        #expect(throws: StoreError.self) { try SQLiteStore.started(.init(path: database.path)) }
        #expect(try sqlite3(database.path, "SELECT count(*) FROM sqlite_schema; PRAGMA user_version; PRAGMA application_id;") == "1\n0\n0\n")
    }

    @Test("both durability settings store and reopen", arguments: Durability.allCases)
    func durabilitySettings(durability: Durability) async throws {
        try await withSQLiteStore(durability: durability) { store, _ in
            let change = try await store.apply(.increment(.one), toCounterOf: profile("d"), if: nil)
            #expect(change.state.counter.value == 1)
        }
    }

    @Test("a database at schema 1 migrates: counters become numIndex, their events stay, versions follow the log")
    func migrationFromVersion1() async throws {
        let database = try Self.olderDatabase(version: 1, """
                INSERT INTO profiles (name, created_at, last_event_id) VALUES ('old', 0, 3);
                INSERT INTO counters (profile, value, version) VALUES ('old', -5, 3);
                INSERT INTO events VALUES ('old', 1, 'counter', '{}', 0), ('old', 2, 'counter', '{}', 0), ('old', 3, 'counter', '{}', 0);
            """)
        defer { database.remove() }
        let store = try SQLiteStore.started(.init(path: database.path))
        let state = try await store.counter(of: profile("old"))
        #expect(state.counter.value == -5)
        #expect(state.version == Version(3))
        #expect(try await store.counter(of: .default) == .fresh(.default))
        #expect(try await store.apply(.increment(.one), toCounterOf: profile("old"), if: .version(in: [Version(3)])).eventID == 4)
        #expect(try await store.preferences(of: profile("old")).merged == ["numIndex": .string("-4")])
        await store.close()
        #expect(try sqlite3(database.path, "PRAGMA user_version; SELECT count(*) FROM sqlite_schema WHERE name = 'counters';")
                == "\(SQLiteSchema.latestVersion)\n0\n")
    }

    @Test("a database at schema 8 migrates to 9: each kept event gets its size and its place in its profile's log")
    func migrationCountsEventBytes() async throws {
        let database = try Self.olderDatabase(version: 8, """
                INSERT INTO profiles (name, created_at, last_event_id) VALUES ('old', 0, 5), ('two', 0, 2);
                INSERT INTO events VALUES ('old', 3, 'counter', '{"a":1}', 0), ('old', 4, 'counter', '{"caf\u{E9}":1}', 0),
                                          ('old', 5, 'counter', '{}', 0), ('two', 1, 'counter', '{"x":"yz"}', 0), ('two', 2, 'counter', '{}', 0);
            """)
        defer { database.remove() }
        let store = try SQLiteStore.started(.init(path: database.path))
        #expect(try sqlite3(database.path, "SELECT profile, id, log_offset, log_size FROM events ORDER BY profile, id;")
                == "old|3|0|7\nold|4|7|11\nold|5|18|2\ntwo|1|0|10\ntwo|2|10|2\n")
        let listing = try await store.profiles(after: nil, limit: 10).profiles
        #expect(listing.first { $0.name == profile("old") }?.eventLogBytes == 20)
        #expect(listing.first { $0.name == profile("two") }?.eventLogBytes == 12)
        _ = try await store.apply(.increment(.one), toCounterOf: profile("old"), if: nil)
        #expect(try sqlite3(database.path, "SELECT log_offset FROM events WHERE profile = 'old' AND id = 6;") == "20\n")
        await store.close()
    }

    @Test("the file gives space back: 16 MB written, then removed and the log pruned, and the file shrinks to a fraction")
    func fileShrinksAfterDeletes() async throws {
        let database = try TestDatabase()
        defer { database.remove() }
        var limits = StoreLimits()
        limits.maxEventLogBytes = 200_000
        let options = SQLiteStore.Options(path: database.path, durability: .normal,
                                          policy: StorePolicy(limits: limits, pruneInterval: .milliseconds(100)))
        func fileBytes() throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: database.path)[.size] as? Int)
        }
        let big = JSONValue.string(String(repeating: "v", count: 60_000))
        let keys = try (0..<256).map { try PreferenceKey("k\($0)") }
        let writer = try SQLiteStore.started(options)
        for key in keys { _ = try await writer.setPreference(big, for: key, of: profile("big"), if: nil) }
        await writer.close()
        let full = try fileBytes()
        #expect(full > 15_000_000, "\(full) bytes")
        #expect(try sqlite3(database.path, "PRAGMA auto_vacuum;") == "2\n", "incremental vacuum from the first table on")

        let store = try SQLiteStore.started(options)
        for key in keys { _ = try await store.removePreference(key, of: profile("big"), if: nil) }
        try await Task.sleep(for: .milliseconds(500))  // the writer's maintenance runs every 100 ms
        await store.close()
        let emptied = try fileBytes()
        print("file: \(full) bytes with 256 values of 60 KB, \(emptied) after removing them")
        #expect(emptied < full / 10, "\(full) bytes before, \(emptied) after")
        #expect(try sqlite3(database.path, "PRAGMA freelist_count; PRAGMA integrity_check;") == "0\nok\n")
    }

    @Test("a file made without incremental vacuum is switched at the service's start, with one VACUUM, and says so")
    func existingFileSwitched() async throws {
        // As a build before incremental vacuum made it.
        let database = try Self.olderDatabase(version: 8, autoVacuum: false)
        defer { database.remove() }
        #expect(try sqlite3(database.path, "PRAGMA auto_vacuum;") == "0\n")
        let store = try SQLiteStore.started(.init(path: database.path))
        #expect(store.startNotices.contains { $0.contains("auto_vacuum = INCREMENTAL") && $0.contains("one VACUUM") }, "\(store.startNotices)")
        await store.close()
        #expect(try sqlite3(database.path, "PRAGMA auto_vacuum;") == "2\n")
        let again = try SQLiteStore.started(.init(path: database.path))
        #expect(again.startNotices.allSatisfy { !$0.contains("VACUUM") }, "once only")
        await again.close()
    }

    @Test("a database at schema 9 migrates to 10: idempotency keys are numbered per profile and per token, by age")
    func migrationNumbersIdempotencyKeys() async throws {
        let database = try Self.olderDatabase(version: 9, """
                INSERT INTO idempotency_keys (profile, key, fingerprint, created_at, status, headers, body, token) VALUES
                    ('a', 'z', 'f', 10, 200, '[]', '', 't'), ('a', 'y', 'f', 30, 200, '[]', '', NULL),
                    ('b', 'x', 'f', 20, 200, '[]', '', 't'), ('a', 'w', 'f', 20, 200, '[]', '', 't');
            """)
        defer { database.remove() }
        let store = try SQLiteStore.started(.init(path: database.path))
        await store.close()
        let numbered = try sqlite3(database.path, "SELECT profile, key, seq, token_seq FROM idempotency_keys ORDER BY profile, seq;")
        #expect(numbered == "a|z|1|1\na|w|2|2\na|y|3|0\nb|x|1|3\n", "\(numbered)")
    }
}
