import Foundation
import HTTPTestClient
import NavPrefsApp
import Testing

/// `Idempotency-Key` on the writes, over a real socket: a retry gets the first answer, marked
/// `Idempotent-Replayed: true`, and changes nothing; another request with the key is 422.
@Suite("Idempotency-Key on writes")
struct IdempotencyAPITests {
    @Test("a retried increment answers the first answer byte for byte (status, body, ETag) and increments once")
    func retriedIncrement() async throws {
        try await withApp { app in
            let key = [("Idempotency-Key", "0f8c8a2e-increment-1")]
            let first = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: key, json: #"{"by": 5}"#)
            #expect(first.status == 200)
            #expect(first.text == #"{"profile":"ana","value":5,"stringValue":"5","version":1,"eventId":1}"# + "\n")
            #expect(first.header("Idempotent-Replayed") == nil)
            for _ in 0..<3 {
                let retry = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: key, json: #"{"by": 5}"#)
                #expect(retry.status == 200)
                #expect(retry.text == first.text)
                #expect(retry.header("ETag") == first.header("ETag"))
                #expect(retry.header("Content-Type") == "application/json")
                #expect(retry.header("Idempotent-Replayed") == "true")
            }
            #expect(try await app.request("GET", "/v1/profiles/ana/counter").int("value") == 5)
            // The quoted form (a Structured Field string) names the same key.
            let quoted = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: [("Idempotency-Key", "\"0f8c8a2e-increment-1\"")],
                                               json: #"{"by": 5}"#)
            #expect(quoted.header("Idempotent-Replayed") == "true")
        }
    }

    @Test("the same key with another body, path or condition is 422 idempotency-key-reused and changes nothing")
    func reuse() async throws {
        try await withApp { app in
            let key = [("Idempotency-Key", "k-reuse")]
            #expect(try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: key).status == 200)
            let otherBody = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: key, json: #"{"by": 2}"#)
            #expect(otherBody.status == 422)
            #expect(try otherBody.problemType() == problem("idempotency-key-reused"))
            let otherPath = try await app.request("POST", "/v1/profiles/ana/counter/decrement", headers: key)
            #expect(try otherPath.problemType() == problem("idempotency-key-reused"))
            let otherCondition = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: key + [("If-Match", "\"1\"")])
            #expect(try otherCondition.problemType() == problem("idempotency-key-reused"))
            #expect(try await app.request("GET", "/v1/profiles/ana/counter").int("value") == 1)
            // Keys are per profile: another profile's request with the key is its own.
            #expect(try await app.request("POST", "/v1/profiles/bob/counter/increment", headers: key, json: #"{"by": 2}"#).status == 200)
        }
    }

    @Test("a malformed key is 400 invalid-idempotency-key and nothing runs")
    func malformedKey() async throws {
        try await withApp { app in
            for bad in [String(repeating: "k", count: 256), "\"\"", "caf\u{E9}", "two words"] {
                let response = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: [("Idempotency-Key", bad)])
                #expect(response.status == 400, "\(bad)")
                #expect(try response.problemType() == problem("invalid-idempotency-key"))
            }
            #expect(try await app.request("GET", "/v1/profiles/ana/counter").int("value") == 0)
        }
    }

    @Test("a refused write is not remembered: after a 412, the same request with the key runs once the condition holds")
    func refusedNotRemembered() async throws {
        try await withApp { app in
            let headers = [("Idempotency-Key", "k-412"), ("If-Match", "\"1\"")]
            let refused = try await app.request("PUT", "/v1/profiles/ana/preferences/theme", headers: headers, json: #"{"value":"dark"}"#)
            #expect(refused.status == 412)
            _ = try await app.request("PUT", "/v1/profiles/ana/preferences/other", json: #"{"value":1}"#)  // version 1 now exists
            _ = try await app.request("PUT", "/v1/profiles/ana/preferences/theme", json: #"{"value":"light"}"#)
            let conditional = try await app.request("PUT", "/v1/profiles/ana/preferences/theme", headers: headers, json: #"{"value":"dark"}"#)
            #expect(conditional.status == 412, "the key theme is at version 2: still refused, and still not remembered")
        }
    }

    @Test("session create, push and delete replay their answers: one session, one push, one delete")
    func sessions() async throws {
        try await withApp { app in
            let create = [("Idempotency-Key", "launch-42")]
            let first = try await app.request("POST", sessionsPath(), headers: create, json: #"{"root":{"id":"home"},"label":"launch 42"}"#)
            #expect(first.status == 201)
            let again = try await app.request("POST", sessionsPath(), headers: create, json: #"{"root":{"id":"home"},"label":"launch 42"}"#)
            #expect(again.status == 201)
            #expect(again.text == first.text)
            #expect(again.header("Location") == first.header("Location"))
            #expect(again.header("Idempotent-Replayed") == "true")
            let id = try #require(first.string(at: "/session"))
            #expect(first.string(at: "/label") == "launch 42")
            let push = [("Idempotency-Key", "push-1")]
            for _ in 0..<2 {
                let pushed = try await app.request("POST", sessionPath(id, "/push"), headers: push, json: pushBody("detail"))
                #expect(pushed.status == 200)
                #expect(pushed.ids(at: "/stack/screens") == ["home", "detail"])
            }
            let delete = [("Idempotency-Key", "delete-1")]
            #expect(try await app.request("DELETE", sessionPath(id), headers: delete).status == 200)
            let deletedAgain = try await app.request("DELETE", sessionPath(id), headers: delete)
            #expect(deletedAgain.status == 200, "a retried delete answers its first answer, not 404")
            #expect(deletedAgain.header("Idempotent-Replayed") == "true")
            let events = try await app.request("GET", "/v1/profiles/ana/events?after=0", headers: [("Accept", "application/json")])
            #expect(events.integer(at: "/lastEventId") == 3, "create, push, delete: three events")
        }
    }

    @Test("issue 21: a keyed write records its token; an admin token spreading keys over profiles keeps its newest (1,024 here)")
    func capPerToken() async throws {
        try await withApp({ $0.idempotencyKeysPerToken = 1_024 }) { app in
            let admin = try await app.makeToken()
            let auth = [("Authorization", "Bearer \(admin.token)")]
            // 1,030 keyed increments over five profiles: 206 each, within a profile's 4,096, beyond the token's 1,024.
            for index in 0..<1_030 {
                let key = "spread-" + String(index + 10_000)
                let response = try await app.request("POST", "/v1/profiles/spread-\(index % 5)/counter/increment",
                                                     headers: auth + [("Idempotency-Key", key)])
                try #require(response.status == 200)
            }
            let database = app.directory.appendingPathComponent("navprefs.sqlite").path
            let rows = try runToEnd("/usr/bin/sqlite3", [database, "SELECT count(*), count(DISTINCT token), min(token) FROM idempotency_keys"],
                                    environment: [:])
            #expect(rows.output == "1024|1|\(admin.id)\n")
            let newest = try await app.request("POST", "/v1/profiles/spread-4/counter/increment",
                                               headers: auth + [("Idempotency-Key", "spread-11029")])
            #expect(newest.header("Idempotent-Replayed") == "true")
            let oldest = try await app.request("POST", "/v1/profiles/spread-0/counter/increment",
                                               headers: auth + [("Idempotency-Key", "spread-10000")])
            #expect(oldest.status == 200)
            #expect(oldest.header("Idempotent-Replayed") == nil, "the token's oldest key was forgotten: its retry ran again")
            #expect(try await app.request("GET", "/v1/profiles/spread-0/counter", headers: auth).int("value") == 207)
        }
    }

    @Test("issue 21: in the open mode keyed writes record no token; only the cap per profile applies")
    func openModeHasNoToken() async throws {
        try await withApp { app in
            #expect(try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: [("Idempotency-Key", "open-1")]).status == 200)
            let database = app.directory.appendingPathComponent("navprefs.sqlite").path
            let rows = try runToEnd("/usr/bin/sqlite3", [database, "SELECT key, token IS NULL FROM idempotency_keys"], environment: [:])
            #expect(rows.output == "open-1|1\n")
        }
    }
}
