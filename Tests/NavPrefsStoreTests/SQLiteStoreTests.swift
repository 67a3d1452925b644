import Foundation
import NavPrefsCore
import NavPrefsStore
import Testing

@Suite("SQLite store: counters, event log, durability settings")
struct SQLiteStoreTests {
    @Test("default always exists and reads as fresh; other profiles come into being on their first write")
    func profilesComeIntoBeing() async throws {
        try await withSQLiteStore { store, _ in
            #expect(try await store.counter(of: .default) == .fresh(.default))
            await #expect(throws: StoreError.profileNotFound(profile("alice"))) {
                try await store.counter(of: profile("alice"))
            }
            let change = try await store.apply(.increment(.one), toCounterOf: profile("alice"), if: nil)
            #expect(change.state.counter.value == 1)
            #expect(change.state.version == Version(1))
            #expect(try await store.counter(of: profile("alice")).counter.value == 1)
        }
    }

    @Test("C-2/C-3: +1, -1 below zero, clear to 0, set")
    func operations() async throws {
        try await withSQLiteStore { store, _ in
            let p = profile("ops")
            #expect(try await store.apply(.decrement(.one), toCounterOf: p, if: nil).state.counter.value == -1)
            #expect(try await store.apply(.decrement(.one), toCounterOf: p, if: nil).state.counter.value == -2)
            #expect(try await store.apply(.increment(step(10)), toCounterOf: p, if: nil).state.counter.value == 8)
            #expect(try await store.apply(.reset, toCounterOf: p, if: nil).state.counter.value == 0)
            #expect(try await store.apply(.set(-42), toCounterOf: p, if: nil).state.counter.value == -42)
            let state = try await store.counter(of: p)
            #expect(state.counter.value == -42)
            #expect(state.version == Version(5))
        }
    }

    @Test("C-4: a write survives closing and reopening the store")
    func persistsAcrossReopen() async throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        do {
            let store = try SQLiteStore(.init(path: database.path))
            _ = try await store.apply(.increment(step(7)), toCounterOf: profile("keep"), if: nil)
            await store.close()
        }
        let reopened = try SQLiteStore(.init(path: database.path))
        let state = try await reopened.counter(of: profile("keep"))
        #expect(state.counter.value == 7)
        #expect(state.version == Version(1))
        #expect(try await reopened.events(of: profile("keep"), after: 0, limit: 10).count == 1)
        await reopened.close()
    }

    @Test("C-7: Int64 boundaries: max-1 plus 1 succeeds; max plus 1 and min minus 1 are refused and change nothing")
    func int64Boundaries() async throws {
        try await withSQLiteStore { store, _ in
            let p = profile("edge")
            _ = try await store.apply(.set(.max - 1), toCounterOf: p, if: nil)
            #expect(try await store.apply(.increment(.one), toCounterOf: p, if: nil).state.counter.value == .max)
            await #expect(throws: StoreError.counter(.outOfRange(current: .max, operation: .increment(.one)))) {
                try await store.apply(.increment(.one), toCounterOf: p, if: nil)
            }
            #expect(try await store.counter(of: p).counter.value == .max)

            _ = try await store.apply(.set(.min), toCounterOf: p, if: nil)
            await #expect(throws: StoreError.counter(.outOfRange(current: .min, operation: .decrement(.one)))) {
                try await store.apply(.decrement(.one), toCounterOf: p, if: nil)
            }
            await #expect(throws: StoreError.self) {
                try await store.apply(.decrement(step(.max)), toCounterOf: p, if: nil)
            }
            let state = try await store.counter(of: p)
            #expect(state.counter.value == .min)
            #expect(state.version == Version(3), "refused writes do not bump the version")
        }
    }

    @Test("every accepted change logs exactly one event in the same transaction; refused ones log none")
    func eventLog() async throws {
        try await withSQLiteStore { store, _ in
            let p = profile("log")
            let first = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
            _ = try await store.apply(.set(.max), toCounterOf: p, if: nil)
            _ = try? await store.apply(.increment(.one), toCounterOf: p, if: nil)  // refused: overflow
            _ = try? await store.apply(.reset, toCounterOf: p, if: .version(in: [Version(1)]))  // refused: stale
            let last = try await store.apply(.reset, toCounterOf: p, if: .version(in: [Version(2)]))
            let events = try await store.events(of: p, after: 0, limit: 100)
            #expect(events.map(\.id) == [1, 2, 3])
            #expect(events.map(\.type) == [.counter, .counter, .counter])
            #expect(first.eventID == 1)
            #expect(last.eventID == 3)
            #expect(events[0].data == #"{"profile":"log","key":"numIndex","operation":"increment","by":1,"value":1,"stringValue":"1","version":1}"#)
            #expect(events[2].data == #"{"profile":"log","key":"numIndex","operation":"reset","value":0,"stringValue":"0","version":3}"#)
            #expect(try await store.events(of: p, after: 2, limit: 100).map(\.id) == [3])
            #expect(try await store.events(of: p, after: 0, limit: 2).map(\.id) == [1, 2])
            #expect(try await store.events(of: profile("other"), after: 0, limit: 100).isEmpty)
        }
    }

    @Test("A-1: If-Match admits only the current version, * only an existing counter")
    func preconditions() async throws {
        try await withSQLiteStore { store, _ in
            let p = profile("cas")
            await #expect(throws: StoreError.preconditionFailed(current: nil)) {
                try await store.apply(.increment(.one), toCounterOf: p, if: .exists)
            }
            await #expect(throws: StoreError.preconditionFailed(current: nil)) {
                try await store.apply(.increment(.one), toCounterOf: p, if: .version(in: [Version(0)]))
            }
            await #expect(throws: StoreError.profileNotFound(p), "a refused conditional write creates nothing") {
                try await store.counter(of: p)
            }
            _ = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
            #expect(try await store.apply(.increment(.one), toCounterOf: p, if: .version(in: [Version(1)])).state.version == Version(2))
            await #expect(throws: StoreError.preconditionFailed(current: Version(2))) {
                try await store.apply(.increment(.one), toCounterOf: p, if: .version(in: [Version(1)]))
            }
            #expect(try await store.apply(.increment(.one), toCounterOf: p, if: .version(in: [Version(9), Version(2)])).state.version == Version(3))
            #expect(try await store.apply(.reset, toCounterOf: p, if: .exists).state.version == Version(4))
            // The default profile exists from the start, at version 0.
            #expect(try await store.apply(.increment(.one), toCounterOf: .default, if: .version(in: [Version(0)])).state.version == Version(1))
        }
    }

    @Test("C-6: concurrent increments lose nothing and each sees a distinct value")
    func concurrentIncrements() async throws {
        try await withSQLiteStore { store, _ in
            let p = profile("race")
            let values = try await withThrowingTaskGroup(of: Int64.self) { group in
                for _ in 0..<400 {
                    group.addTask { try await store.apply(.increment(.one), toCounterOf: p, if: nil).state.counter.value }
                }
                var values: [Int64] = []
                for try await value in group { values.append(value) }
                return values
            }
            #expect(values.sorted() == Array(1...400))
            #expect(try await store.counter(of: p).counter.value == 400)
            #expect(try await store.events(of: p, after: 0, limit: 1000).count == 400)
        }
    }

    @Test("exactly one of two writers holding the same version wins")
    func etagRace() async throws {
        try await withSQLiteStore { store, _ in
            let p = profile("duel")
            _ = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
            let results = await withTaskGroup(of: Bool.self) { group in
                for value in [Int64(10), 20] {
                    group.addTask { (try? await store.apply(.set(value), toCounterOf: p, if: .version(in: [Version(1)]))) != nil }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 1)
            #expect(try await store.counter(of: p).version == Version(2))
        }
    }

    @Test("the cache answers reads after writes, and never goes back to an older version")
    func cacheCoherence() async throws {
        try await withSQLiteStore { store, _ in
            let p = profile("cache")
            #expect(store.cachedCounter(of: p) == nil)
            _ = try? await store.counter(of: p)
            #expect(store.cachedCounter(of: p) == .profileNotFound)
            let change = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
            #expect(store.cachedCounter(of: p) == .found(change.state))
            for _ in 0..<50 {
                async let read = store.counter(of: p)
                let written = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
                _ = try await read
                guard case .found(let cached)? = store.cachedCounter(of: p) else {
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
            #expect(throws: StoreError.self) { try SQLiteStore(.init(path: database.path)) }
        }
    }

    @Test("a SQLite file that is not NavPrefs' is refused, and left alone")
    func foreignDatabase() async throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try #require(try sqlite3(database.path, "CREATE TABLE mine (x); INSERT INTO mine VALUES (1);") == "")
        #expect(throws: StoreError.self) { try SQLiteStore(.init(path: database.path)) }
        #expect(try sqlite3(database.path, "SELECT count(*) FROM sqlite_schema; PRAGMA user_version; PRAGMA application_id;") == "1\n0\n0\n")
    }

    @Test("both durability settings store and reopen", arguments: Durability.allCases)
    func durabilitySettings(durability: Durability) async throws {
        try await withSQLiteStore(durability: durability) { store, _ in
            let change = try await store.apply(.increment(.one), toCounterOf: profile("d"), if: nil)
            #expect(change.state.counter.value == 1)
        }
    }
}

/// Runs Debian's sqlite3 shell on `path` (an independent reader of the file) and returns its output.
func sqlite3(_ path: String, _ sql: String) throws -> String {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [path, sql]
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
