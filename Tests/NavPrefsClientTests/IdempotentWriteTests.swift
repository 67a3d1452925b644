import Foundation
import HTTPTestClient
import NavPrefsClient
import Testing

extension ClientSuites {
    /// A write whose answer is lost is sent again with the same idempotency key: the server
    /// applies it once and answers the retry with the first answer.
    @Suite("Writes whose answers are lost")
    struct IdempotentWriteTests {
        @Test("an increment whose answer is lost is sent again with its key and counted once")
        func lostAnswer() async throws {
            try await withRig { rig in
                let profile = try rig.profile("retry")
                try await profile.reload()
                rig.proxy.loseAnswers(1)
                let started = ContinuousClock.now
                #expect(try await profile.counter.onServer.increment(by: 2) == 2, "the retry's answer is the first one's")
                #expect(ContinuousClock.now - started < .seconds(5), "the retry went out at once, not after a timeout")
                // Without a body too.
                rig.proxy.loseAnswers(1)
                #expect(try await profile.counter.onServer.increment() == 3)
                #expect(try await rig.request("GET", "/v1/profiles/retry/counter").int("value") == 3)
                #expect(try await rig.server.requests("POST", "/v1/profiles/{profile}/counter/increment") == 4, "sent twice each, applied once each")
                let events = try await rig.request("GET", "/v1/profiles/retry/events?after=0", headers: [("Accept", "application/json")])
                #expect(try JSON(parsing: events.text)["lastEventId"] == 2)
                #expect(profile.counter.value == 3)
            }
        }

        @Test("a caller's own idempotency key makes a write safe to repeat across launches")
        func callersKey() async throws {
            try await withRig { rig in
                let profile = try rig.profile("retry")
                for _ in 0..<3 { try await profile.counter.onServer.increment(by: 2, idempotencyKey: "launch-7-plus-2") }
                #expect(try await rig.request("GET", "/v1/profiles/retry/counter").int("value") == 2)
                // The same key for another request is refused, and says why.
                do throws(NavPrefsError) {
                    try await profile.counter.onServer.increment(by: 3, idempotencyKey: "launch-7-plus-2")
                    Issue.record("a reused key was accepted")
                } catch {
                    #expect(error.problem?.type == "urn:navprefs:problem:idempotency-key-reused")
                }
            }
        }
    }
}

extension TestResponse {
    func int(_ key: String) throws -> Int64? { try JSON(parsing: text)[key]?.int64Value }
}
