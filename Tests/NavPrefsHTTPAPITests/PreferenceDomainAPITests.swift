import Foundation
import HTTPTestClient
import NavPrefsApp
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore
import Testing

/// `DELETE /v1/profiles/{profile}/preferences`: `removePersistentDomain(forName:)`, every stored
/// value removed in one transaction, held to Foundation's own `UserDefaults` (P-0, P-6).
@Suite("Removing every stored value (removePersistentDomain)")
struct PreferenceDomainAPITests {
    let base = "/v1/profiles/ana"

    /// `ana`'s log: each event's type and its data as JSON.
    func events(_ app: TestApp) async throws -> [(type: String, data: [String: Any])] {
        try await app.app.store.events(of: try ProfileName("ana"), after: 0, limit: 1_000).map { event in
            (event.type.rawValue, try #require(JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]))
        }
    }

    @Test("P-0, P-6: after the removal every key reads as Foundation's UserDefaults reads it after removePersistentDomain(forName:)")
    func readsAsFoundation() async throws {
        let suite = "navprefs.domain.\(getpid()).\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        defaults.register(defaults: ["theme": "light", "launchCount": 3])
        let stored: [String: Any] = ["theme": "dark", "launchCount": 9, "numIndex": "4", "sliderValuekey": 3.0, "fontSizekey": 20.0,
                                     "tags": ["a", "b"]]
        for (key, value) in stored { defaults.set(value, forKey: key) }
        defaults.removePersistentDomain(forName: suite)
        let reads: [(key: String, getter: String, foundation: JSONValue)] = [
            ("theme", "string", defaults.string(forKey: "theme").map(JSONValue.string) ?? .null),
            ("launchCount", "integer", .integer(Int64(defaults.integer(forKey: "launchCount")))),
            ("numIndex", "string", defaults.string(forKey: "numIndex").map(JSONValue.string) ?? .null),
            ("numIndex", "integer", .integer(Int64(defaults.integer(forKey: "numIndex")))),
            ("sliderValuekey", "double", .number(defaults.double(forKey: "sliderValuekey"))),
            ("fontSizekey", "double", .number(defaults.double(forKey: "fontSizekey"))),
            ("tags", "array", defaults.array(forKey: "tags").map { .array($0.compactMap { ($0 as? String).map(JSONValue.string) }) } ?? .null),
        ]
        try await withApp { app in
            #expect(try await app.request("PUT", base + "/defaults", json: #"{"theme": "light", "launchCount": 3}"#).status == 200)
            let patch = #"{"theme": "dark", "launchCount": 9, "numIndex": "4", "sliderValuekey": 3.0, "fontSizekey": 20.0, "tags": ["a", "b"]}"#
            #expect(try await app.request("PATCH", base + "/preferences", json: patch).status == 200)
            let removed = try await app.request("DELETE", base + "/preferences")
            #expect(removed.status == 200)
            for read in reads {
                let answer = try await app.request("GET", base + "/preferences/\(read.key)?as=\(read.getter)")
                let value = try JSONValue.parse(answer.text)
                guard case .object(let object) = value else { Issue.record("\(read.key): \(answer.text)"); continue }
                #expect(object["value"] == read.foundation, "\(read.key) as \(read.getter): Foundation \(read.foundation), ours \(answer.text)")
            }
            // The set shows the registered defaults only, and the views read as a fresh install.
            let all = try await app.request("GET", base + "/preferences").json()
            #expect((all["values"] as? [String: Any]).map { Set($0.keys) } == ["theme", "launchCount"], "\(all)")
            #expect(try await app.request("GET", base + "/counter").json()["value"] as? Int == 0)
            #expect(try await app.request("GET", base + "/font").json()["effectiveFontSize"] as? Double == 17)
        }
    }

    @Test("each stored key logs its own event, oldest value first (one write's keys by name), one commit; the answer says where each reads from now")
    func eventsAndAnswer() async throws {
        try await withApp { app in
            #expect(try await app.request("PUT", base + "/defaults", json: #"{"theme": "light"}"#).status == 200)
            #expect(try await app.request("PUT", base + "/preferences/theme", json: #"{"value": "dark"}"#).status < 300)
            #expect(try await app.request("POST", base + "/counter/increment").status == 200)
            #expect(try await app.request("PUT", base + "/font", json: #"{"sliderValue": 3}"#).status == 200)
            let before = try await events(app).count
            let removed = try await app.request("DELETE", base + "/preferences")
            #expect(removed.status == 200)
            let body = try removed.json()
            #expect(body["changed"] as? [String] == ["theme", "numIndex", "fontSizekey", "sliderValuekey"])
            let changes = try #require(body["changes"] as? [[String: Any]])
            #expect(changes.map { $0["removed"] as? Bool } == [true, true, true, true])
            #expect(changes.map { $0["source"] as? String } == ["registered", "absent", "absent", "absent"])
            let logged = try await events(app).dropFirst(before)
            #expect(logged.map(\.type) == ["preference", "counter", "refresh", "refresh"])
            #expect(body["eventIds"] as? [Int] == Array(before + 1...before + 4))
            #expect(removed.header("ETag") == "\"\(before + 4)\"")
        }
    }

    @Test("with nothing stored nothing changes: 200, no event, and another profile keeps its values")
    func nothingStored() async throws {
        try await withApp { app in
            #expect(try await app.request("PUT", "/v1/profiles/bob/preferences/theme", json: #"{"value": "dark"}"#).status < 300)
            let removed = try await app.request("DELETE", base + "/preferences")
            #expect(removed.status == 200)
            #expect(removed.text == #"{"profile":"ana","changes":[],"version":0,"eventId":null,"eventIds":[],"changed":[]}"# + "\n")
            #expect(try await events(app).isEmpty)
            #expect(try await app.request("GET", "/v1/profiles/bob/preferences/theme").json()["value"] as? String == "dark")
        }
    }

    @Test("a stale If-Match is refused 412 and removes nothing; the current one removes everything")
    func preconditions() async throws {
        try await withApp { app in
            let set = try await app.request("PUT", base + "/preferences/theme", json: #"{"value": "dark"}"#)
            let stale = try #require(set.header("ETag"))
            #expect(try await app.request("PUT", base + "/preferences/mode", json: #"{"value": 2}"#).status < 300)
            let refused = try await app.request("DELETE", base + "/preferences", headers: [("If-Match", stale)])
            #expect(refused.status == 412)
            #expect(refused.header("Content-Type") == "application/problem+json")
            #expect(try await app.request("GET", base + "/preferences/theme").status == 200)
            let current = try #require(try await app.request("GET", base + "/preferences").header("ETag"))
            #expect(try await app.request("DELETE", base + "/preferences", headers: [("If-Match", current)]).status == 200)
            #expect(try await app.request("GET", base + "/preferences/theme").status == 404)
            #expect(try await app.request("GET", base + "/preferences/mode").status == 404)
        }
    }

    @Test("under an Idempotency-Key it is made once: the retry replays the answer, and a value set in between stays")
    func idempotentRetry() async throws {
        try await withApp { app in
            #expect(try await app.request("PUT", base + "/preferences/theme", json: #"{"value": "dark"}"#).status < 300)
            let first = try await app.request("DELETE", base + "/preferences", headers: [("Idempotency-Key", "wipe-1")])
            #expect(try await app.request("PUT", base + "/preferences/theme", json: #"{"value": "blue"}"#).status < 300)
            let retry = try await app.request("DELETE", base + "/preferences", headers: [("Idempotency-Key", "wipe-1")])
            #expect(first.status == 200 && retry.status == 200)
            #expect(retry.header("Idempotent-Replayed") == "true")
            #expect(retry.text == first.text)
            #expect(try await app.request("GET", base + "/preferences/theme").json()["value"] as? String == "blue")
        }
    }
}
