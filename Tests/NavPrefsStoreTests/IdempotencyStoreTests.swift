import Foundation
import NavPrefsCore
@testable import NavPrefsStore
import Testing

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
            #expect(first == .performed(expected))
            for _ in 0..<3 {
                #expect(try await store.perform(write, remembering: Self.request(p, "k1"), answer: Self.counterAnswer) == .replayed(expected))
            }
            #expect(try await store.counter(of: p).counter.value == 1)
            #expect(try await store.events(of: p, after: 0, limit: 10).count == 1)
            // Another key is another request; without a key nothing is remembered.
            #expect(try await store.perform(write, remembering: Self.request(p, "k2"), answer: Self.counterAnswer)
                == .performed(RecordedAnswer(status: 200, headers: [.init(name: "ETag", value: "\"2\"")], body: "{\"value\":2,\"eventId\":2}")))
            #expect(try await store.perform(write).state.counter.value == 3)
        }
    }

    @Test("issue 21: a profile keeps its 256 newest keys; the oldest is forgotten first (its retry runs as new)", arguments: StoreKind.testCases)
    func keysPerProfileBounded(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let (p, other) = (profile("many-keys"), profile("other"))
            _ = try await store.perform(.counter(.increment(.one), of: other, if: nil), remembering: Self.request(other, "k0"),
                                        answer: Self.counterAnswer)
            for index in 0..<260 {
                _ = try await store.perform(.counter(.increment(.one), of: p, if: nil), remembering: Self.request(p, "k\(index)"),
                                            answer: Self.counterAnswer)
                // Keys made within one millisecond tie on time; keep them apart.
                if index < 5 { try await Task.sleep(for: .milliseconds(2)) }
            }
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
            guard case .performed(let first) = try await store.perform(write, remembering: Self.request(p, "k"), answer: answer) else {
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
            guard case .performed(let answer)? = performed.first else { return }
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
