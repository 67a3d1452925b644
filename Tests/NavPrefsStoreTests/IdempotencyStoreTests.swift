import Foundation
import HTTPTestClient
import NavPrefsCore
@testable import NavPrefsPostgres
@testable import NavPrefsSQLite
@testable import NavPrefsStore
import Testing
import StoreTestSupport

/// Writes under an idempotency key through the ``Store`` protocol, against every store: the key,
/// the write and its answer commit together, so a retry answers the first answer and changes
/// nothing twice.
@Suite("Store contract: idempotency keys")
struct IdempotencyStoreTests {
    static func request(_ profile: ProfileName, _ key: String, _ fingerprint: String = "f1") -> IdempotentRequest {
        IdempotentRequest(profile: profile, key: key, fingerprint: fingerprint)
    }

    /// The answer a counter write records: its value and version, as the HTTP layer would send them.
    static let counterAnswer: @Sendable (CounterChange) -> RecordedAnswer = { change in
        RecordedAnswer(status: 200, headers: [.init(name: "ETag", value: "\"\(change.state.version)\"")],
                       body: "{\"value\":\(change.state.counter.value),\"eventId\":\(change.eventID)}")
    }

    @Test("a retry with the same key answers the first answer and writes nothing: one increment, one event", arguments: StoreKind.testCases)
    func retryReplays(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("idem")
            let write = StoreWrite.counter(.increment(.one), of: p, if: nil)
            let first = try await store.perform(write, remembering: Self.request(p, "k1"), answer: Self.counterAnswer)
            let expected = RecordedAnswer(status: 200, headers: [.init(name: "ETag", value: "\"1\"")], body: "{\"value\":1,\"eventId\":1}")
            #expect(first == .performed(expected, rememberedFor: .seconds(86_400)), "a quiet profile keeps its keys for the whole window")
            for _ in 0..<3 {
                #expect(try await store.perform(write, remembering: Self.request(p, "k1"), answer: Self.counterAnswer) == .replayed(expected))
            }
            #expect(try await store.counter(of: p).counter.value == 1)
            #expect(try await store.events(of: p, after: 0, limit: 10).count == 1)
            // Another key is another request; without a key nothing is remembered.
            #expect(try await store.perform(write, remembering: Self.request(p, "k2"), answer: Self.counterAnswer)
                == .performed(RecordedAnswer(status: 200, headers: [.init(name: "ETag", value: "\"2\"")], body: "{\"value\":2,\"eventId\":2}"),
                              rememberedFor: .seconds(86_400)))
            #expect(try await store.perform(write).state.counter.value == 3)
        }
    }

    @Test("issue 21: a profile keeps its newest keys (256 here); the oldest is forgotten first (its retry runs as new)", arguments: StoreKind.testCases)
    func keysPerProfileBounded(kind: StoreKind) async throws {
        var settings = StoreSettings()
        settings.maxIdempotencyKeysPerProfile = 256
        try await withStore(kind, settings) { store, _ in
            let (p, other) = (profile("many-keys"), profile("other"))
            _ = try await store.perform(.counter(.increment(.one), of: other, if: nil), remembering: Self.request(other, "k0"),
                                        answer: Self.counterAnswer)
            var remembered: [Duration] = []
            for index in 0..<260 {
                let outcome = try await store.perform(.counter(.increment(.one), of: p, if: nil), remembering: Self.request(p, "k\(index)"),
                                                      answer: Self.counterAnswer)
                if case .performed(_, let window) = outcome { remembered.append(window) }
                // Keys made within one millisecond tie on time; keep them apart.
                if index < 5 { try await Task.sleep(for: .milliseconds(2)) }
            }
            // Below the cap a key is remembered for the whole window; at the cap, for as long as
            // the cap's worth of keyed writes takes at this profile's rate: the age of its oldest key.
            #expect(remembered.count == 260)
            #expect(remembered.prefix(255).allSatisfy { $0 == .seconds(86_400) })
            #expect(remembered.suffix(5).allSatisfy { $0 < .seconds(60) }, "\(remembered.suffix(5))")
            let write = StoreWrite.counter(.increment(.one), of: p, if: nil)
            guard case .replayed = try await store.perform(write, remembering: Self.request(p, "k259"), answer: Self.counterAnswer) else {
                Issue.record("the newest key was forgotten")
                return
            }
            #expect(try await store.counter(of: p).counter.value == 260)
            guard case .performed = try await store.perform(write, remembering: Self.request(p, "k0"), answer: Self.counterAnswer) else {
                Issue.record("the oldest key beyond the cap was still remembered")
                return
            }
            #expect(try await store.counter(of: p).counter.value == 261)
            // Another profile's keys are its own.
            guard case .replayed = try await store.perform(.counter(.increment(.one), of: other, if: nil),
                                                          remembering: Self.request(other, "k0"), answer: Self.counterAnswer) else {
                Issue.record("another profile's key was forgotten")
                return
            }
        }
    }

    /// Rows of `idempotency_keys` matching `condition`, read behind the store's back.
    static func recordCount(_ database: TestDatabase, where condition: String) throws -> Int64 {
        let sql = "SELECT count(*) FROM idempotency_keys WHERE \(condition)"
        switch database.kind {
        case .sqlite:
            return try #require(Int64(try sqlite3(database.path, sql).trimmingCharacters(in: .whitespacesAndNewlines)))
        case .postgres:
            return try #require(try PostgresConnection(url: database.url).queryFirst(sql)?.int64(0))
        }
    }

    @Test("issue 21: a token keeps its newest keys over all its profiles, the oldest going first; other tokens' and tokenless keys stay",
          arguments: StoreKind.testCases)
    func keysPerTokenBounded(kind: StoreKind) async throws {
        var settings = StoreSettings()
        settings.maxIdempotencyKeysPerToken = 8
        try await withStore(kind, settings) { store, database in
            func keyed(_ p: ProfileName, _ key: String, token: String?) async throws -> IdempotentOutcome {
                try await store.perform(.counter(.increment(.one), of: p, if: nil),
                                        remembering: IdempotentRequest(profile: p, key: key, fingerprint: "f", token: token),
                                        answer: Self.counterAnswer)
            }
            let open = profile("open")
            _ = try await keyed(open, "no-token", token: nil)
            _ = try await keyed(open, "other-token", token: "t2")
            // Twelve keys of token t1 over four profiles, three each, made one after the other.
            let profiles = (0..<4).map { profile("spread-\($0)") }
            var made: [(ProfileName, String)] = []
            for index in 0..<12 {
                try await Task.sleep(for: .milliseconds(2))  // keys made within one millisecond tie on time
                let p = profiles[index % 4]
                _ = try await keyed(p, "k\(index)", token: "t1")
                made.append((p, "k\(index)"))
            }
            #expect(try Self.recordCount(database, where: "token = 't1'") == 8)
            #expect(try Self.recordCount(database, where: "token IS NULL") == 1)
            #expect(try Self.recordCount(database, where: "token = 't2'") == 1)
            // The eight newest replay, in whichever profile they are (a replay records nothing).
            for (p, key) in made.suffix(8) {
                guard case .replayed = try await keyed(p, key, token: "t1") else { Issue.record("\(key) was forgotten"); return }
            }
            // Keys of no token and of another token are still remembered.
            guard case .replayed = try await keyed(open, "no-token", token: nil),
                  case .replayed = try await keyed(open, "other-token", token: "t2")
            else { Issue.record("a key of another token, or of none, was forgotten"); return }
            // The oldest of t1 went: its retry runs as a new request.
            let (oldestProfile, oldestKey) = made[0]
            guard case .performed = try await keyed(oldestProfile, oldestKey, token: "t1") else {
                Issue.record("the token's oldest key beyond its cap was still remembered")
                return
            }
            #expect(try await store.counter(of: oldestProfile).counter.value == 4)
            #expect(try Self.recordCount(database, where: "token = 't1'") == 8)
        }
    }

    @Test("issue 21: 48 concurrent keyed writes of one token over six profiles all commit, and the token's cap holds after",
          arguments: StoreKind.testCases)
    func keysPerTokenUnderConcurrency(kind: StoreKind) async throws {
        var settings = StoreSettings()
        settings.maxIdempotencyKeysPerToken = 8
        try await withStore(kind, settings) { store, database in
            let outcomes = try await withThrowingTaskGroup(of: IdempotentOutcome.self) { group in
                for index in 0..<48 {
                    group.addTask {
                        let p = profile("busy-\(index % 6)")
                        return try await store.perform(.counter(.increment(.one), of: p, if: nil),
                                                       remembering: IdempotentRequest(profile: p, key: "k\(index)", fingerprint: "f", token: "t"),
                                                       answer: Self.counterAnswer)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.allSatisfy { if case .performed = $0 { true } else { false } })
            // Rows another transaction held were skipped, not waited for: the next write trims them.
            _ = try await store.perform(.counter(.increment(.one), of: profile("busy-0"), if: nil),
                                        remembering: IdempotentRequest(profile: profile("busy-0"), key: "last", fingerprint: "f", token: "t"),
                                        answer: Self.counterAnswer)
            #expect(try Self.recordCount(database, where: "token = 't'") == 8)
        }
    }

    @Test("issue 21: a database from before the token column migrates; its keys still replay, new ones record their token",
          arguments: StoreKind.testCases)
    func tokenColumnMigration(kind: StoreKind) async throws {
        let database = try await onOwnThread { try TestDatabase(kind) }
        defer { database.remove() }
        // The schema as the previous release left it, with a key recorded then.
        switch kind {
        case .sqlite:
            let connection = try SQLiteConnection(path: database.path, readOnly: false)
            try connection.execute("PRAGMA journal_mode = WAL")
            try SQLiteSchema.migrate(connection, upTo: SQLiteSchema.latestVersion - 1)
            try connection.execute("""
                INSERT INTO idempotency_keys (profile, key, fingerprint, created_at, status, headers, body)
                VALUES ('old', 'k-old', 'f1', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), 200,
                        '[["ETag","\\"1\\""]]', '{"value":1,"eventId":1}')
                """)
        case .postgres:
            let connection = try PostgresConnection(url: database.url)
            try PostgresSchema.migrate(connection, upTo: PostgresSchema.latestVersion - 1)
            try connection.execute("""
                INSERT INTO idempotency_keys (profile, key, fingerprint, created_at, status, headers, body)
                VALUES ('old', 'k-old', 'f1', floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint, 200,
                        '[["ETag","\\"1\\""]]', '{"value":1,"eventId":1}')
                """)
        }
        let store = try await onOwnThread { try database.open() }
        let p = profile("old")
        let replay = try await store.perform(.counter(.increment(.one), of: p, if: nil), remembering: Self.request(p, "k-old"),
                                             answer: Self.counterAnswer)
        #expect(replay == .replayed(RecordedAnswer(status: 200, headers: [.init(name: "ETag", value: "\"1\"")],
                                                   body: "{\"value\":1,\"eventId\":1}")))
        _ = try await store.perform(.counter(.increment(.one), of: p, if: nil),
                                    remembering: IdempotentRequest(profile: p, key: "k-new", fingerprint: "f1", token: "tok-1"),
                                    answer: Self.counterAnswer)
        await store.close()
        #expect(try Self.recordCount(database, where: "token IS NULL AND key = 'k-old'") == 1)
        #expect(try Self.recordCount(database, where: "token = 'tok-1' AND key = 'k-new'") == 1)
    }

    @Test("issue 21: a large answer is recorded as its summary (status, fields, short scalars); the writer still gets it whole",
          arguments: StoreKind.testCases)
    func largeAnswersSummarized(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("large")
            let big = String(repeating: "x", count: 40_000)
            let answer: @Sendable (CounterChange) -> RecordedAnswer = { change in
                RecordedAnswer(status: 200, headers: [.init(name: "ETag", value: "\"\(change.state.version)\"")],
                               body: "{\"profile\":\"large\",\"version\":\(change.state.version),\"values\":{\"k\":\"\(big)\"},\"note\":\"\(big)\"}")
            }
            let write = StoreWrite.counter(.increment(.one), of: p, if: nil)
            guard case .performed(let first, _) = try await store.perform(write, remembering: Self.request(p, "k"), answer: answer) else {
                Issue.record("not performed")
                return
            }
            #expect(first.body.utf8.count > 80_000)
            guard case .replayed(let replay) = try await store.perform(write, remembering: Self.request(p, "k"), answer: answer) else {
                Issue.record("not replayed")
                return
            }
            #expect(replay.status == 200)
            #expect(replay.headers == first.headers)
            #expect(replay.body == "{\"profile\":\"large\",\"version\":1,\"summarized\":true}\n")
        }
    }

    @Test("the same key with another request is refused and writes nothing; keys are per profile", arguments: StoreKind.testCases)
    func keyReuse(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let (a, b) = (profile("a"), profile("b"))
            _ = try await store.perform(.counter(.increment(.one), of: a, if: nil), remembering: Self.request(a, "k"), answer: Self.counterAnswer)
            let reused = try await store.perform(.counter(.increment(step(5)), of: a, if: nil), remembering: Self.request(a, "k", "f2"),
                                                 answer: Self.counterAnswer)
            #expect(reused == .keyReused)
            #expect(try await store.counter(of: a).counter.value == 1)
            let other = try await store.perform(.counter(.increment(.one), of: b, if: nil), remembering: Self.request(b, "k"),
                                                answer: Self.counterAnswer)
            guard case .performed = other else { Issue.record("profile b's key k was taken by profile a's: \(other)"); return }
        }
    }

    @Test("a refused write records nothing: its retry is evaluated afresh", arguments: StoreKind.testCases)
    func refusalsAreNotRecorded(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("refused")
            _ = try await store.apply(.set(.max), toCounterOf: p, if: nil)
            await #expect(throws: StoreError.counter(.outOfRange(current: .max, operation: .increment(.one)))) {
                try await store.perform(.counter(.increment(.one), of: p, if: nil), remembering: Self.request(p, "k"), answer: Self.counterAnswer)
            }
            _ = try await store.apply(.set(0), toCounterOf: p, if: nil)
            let retried = try await store.perform(.counter(.increment(.one), of: p, if: nil), remembering: Self.request(p, "k"),
                                                  answer: Self.counterAnswer)
            guard case .performed = retried else { Issue.record("expected the retry to run: \(retried)"); return }
            #expect(try await store.counter(of: p).counter.value == 1)
        }
    }

    @Test("24 concurrent requests with one key: exactly one write, 23 replays of its answer", arguments: StoreKind.testCases)
    func concurrentRetries(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("race")
            let outcomes = try await withThrowingTaskGroup(of: IdempotentOutcome.self) { group in
                for _ in 0..<24 {
                    group.addTask {
                        try await store.perform(.counter(.increment(.one), of: p, if: nil), remembering: Self.request(p, "same"),
                                                answer: Self.counterAnswer)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let performed = outcomes.filter { if case .performed = $0 { true } else { false } }
            #expect(performed.count == 1)
            guard case .performed(let answer, _)? = performed.first else { return }
            #expect(outcomes.filter { $0 == .replayed(answer) }.count == 23)
            #expect(try await store.counter(of: p).counter.value == 1)
        }
    }

    @Test("a key older than the window counts as unused, and pruning deletes it", arguments: StoreKind.testCases)
    func window(kind: StoreKind) async throws {
        try await withStore(kind, StoreSettings(idempotencyWindow: .seconds(60))) { store, database in
            let p = profile("window")
            _ = try await store.perform(.counter(.increment(.one), of: p, if: nil), remembering: Self.request(p, "old"), answer: Self.counterAnswer)
            _ = try await store.perform(.counter(.increment(.one), of: p, if: nil), remembering: Self.request(p, "new"), answer: Self.counterAnswer)
            try database.execute("UPDATE idempotency_keys SET created_at = created_at - 120000 WHERE key = 'old'")
            let again = try await store.perform(.counter(.increment(.one), of: p, if: nil), remembering: Self.request(p, "old", "other"),
                                                answer: Self.counterAnswer)
            guard case .performed = again else { Issue.record("an expired key was still remembered: \(again)"); return }
            #expect(try await store.counter(of: p).counter.value == 3)
            try database.execute("UPDATE idempotency_keys SET created_at = created_at - 120000 WHERE key = 'old'")
            _ = try await prune(store)
            #expect(try await store.perform(.counter(.increment(.one), of: p, if: nil), remembering: Self.request(p, "new"),
                                            answer: Self.counterAnswer) != .keyReused, "the recent key is kept")
            let left = try await store.perform(.counter(.increment(.one), of: p, if: nil), remembering: Self.request(p, "old", "third"),
                                               answer: Self.counterAnswer)
            guard case .performed = left else { Issue.record("pruning kept an expired key: \(left)"); return }
        }
    }
}
