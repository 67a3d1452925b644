import Foundation
import HTTPTestClient
import NavPrefsApp
import NavPrefsCore
import NavPrefsStore
import Testing

/// `DELETE /v1/profiles/{profile}/font`: `removeObject(forKey:)` for both font keys in one
/// transaction, over a real socket.
@Suite("Font reset API")
struct FontResetAPITests {
    let base = "/v1/profiles/ana"

    /// The `refresh` events of `ana`'s log, as the stream would carry them.
    func refreshes(_ app: TestApp) async throws -> [[String: Any]] {
        try await app.app.store.events(of: try ProfileName("ana"), after: 0, limit: 1_000)
            .filter { $0.type == .refresh }
            .map { event in try #require(JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]) }
    }

    @Test("F-3, F-5, F-6: a reset reads as a fresh install (slider 0, size 17) and logs one refresh naming both keys removed")
    func resetReadsFresh() async throws {
        try await withApp { app in
            #expect(try await app.request("PUT", base + "/font", json: #"{"sliderValue": 3}"#).status == 200)
            let reset = try await app.request("DELETE", base + "/font")
            #expect(reset.status == 200)
            #expect(reset.text == #"{"profile":"ana","sliderValue":0.0,"fontSize":0.0,"effectiveFontSize":17.0,"version":2,"eventId":2}"# + "\n")
            #expect(reset.header("ETag") == #""2""#)
            #expect(try await app.request("GET", base + "/font").json()["effectiveFontSize"] as? Double == 17)
            for key in ["sliderValuekey", "fontSizekey"] {
                #expect(try await app.request("GET", base + "/preferences/" + key).status == 404, "\(key) has no value after the reset")
            }
            let events = try await refreshes(app)
            try #require(events.count == 2, "one refresh for the slider change, one for the reset")
            #expect(events[1]["keys"] as? [String] == ["sliderValuekey", "fontSizekey"])
            #expect(events[1]["removed"] as? [String] == ["sliderValuekey", "fontSizekey"])
            #expect(events[1]["effectiveFontSize"] as? Double == 17)
        }
    }

    @Test("F-6: a reset of settings never set still logs its one refresh, as every accepted slider change does")
    func resetOfNothingStillRefreshes() async throws {
        try await withApp { app in
            let reset = try await app.request("DELETE", base + "/font")
            #expect(reset.status == 200)
            #expect(try reset.json()["eventId"] as? Int == 1)
            #expect(try await refreshes(app).count == 1)
        }
    }

    @Test("P-6: after a reset, registered defaults of the font keys show again")
    func registeredDefaultsShowAgain() async throws {
        try await withApp { app in
            #expect(try await app.request("PUT", base + "/defaults", json: #"{"sliderValuekey": 4, "fontSizekey": 21}"#).status == 200)
            #expect(try await app.request("PUT", base + "/font", json: #"{"sliderValue": 10}"#).status == 200)
            let reset = try await app.request("DELETE", base + "/font")
            #expect(try reset.json()["sliderValue"] as? Double == 4)
            #expect(try reset.json()["effectiveFontSize"] as? Double == 21)
        }
    }

    @Test("a reset under a stale If-Match is refused 412 and changes nothing; under the current one it is accepted")
    func preconditions() async throws {
        try await withApp { app in
            let set = try await app.request("PUT", base + "/font", json: #"{"sliderValue": 3}"#)
            let current = try #require(set.header("ETag"))
            #expect(try await app.request("PUT", base + "/font", json: #"{"sliderValue": 5}"#).status == 200)
            let stale = try await app.request("DELETE", base + "/font", headers: [("If-Match", current)])
            #expect(stale.status == 412)
            #expect(stale.header("Content-Type") == "application/problem+json")
            #expect(try await app.request("GET", base + "/font").json()["sliderValue"] as? Double == 5)
            let now = try #require(try await app.request("GET", base + "/font").header("ETag"))
            #expect(try await app.request("DELETE", base + "/font", headers: [("If-Match", now)]).status == 200)
            #expect(try await refreshes(app).count == 3, "two slider changes and one reset; the refused reset logged nothing")
        }
    }

    @Test("a reset under an Idempotency-Key is made once: the retry replays the answer and logs nothing")
    func idempotentRetry() async throws {
        try await withApp { app in
            _ = try await app.request("PUT", base + "/font", json: #"{"sliderValue": 3}"#)
            let first = try await app.request("DELETE", base + "/font", headers: [("Idempotency-Key", "reset-1")])
            let retry = try await app.request("DELETE", base + "/font", headers: [("Idempotency-Key", "reset-1")])
            #expect(first.status == 200 && retry.status == 200)
            #expect(retry.header("Idempotent-Replayed") == "true")
            #expect(retry.text == first.text)
            #expect(try await refreshes(app).count == 2)
        }
    }
}
