import Foundation
import HTTPTestClient
import NavPrefsApp
import Testing

/// Issue 21, items 1 and 2: nothing a client sends is multiplied in storage. Before: 40 keyed
/// `PATCH`es of ten bytes each, over a profile holding 15 values of 60 KB, grew the database by
/// 37.8 MB (each answer, holding every value, was recorded whole), and one profile could hold
/// about 0.5 GB.
@Suite("Storage bounds: idempotency records and the per-profile quota")
struct StorageBoundsAPITests {
    /// The bytes `profile` holds, as the admin listing reports them (all of them, event log included).
    static func storageBytes(_ app: TestApp, _ profile: String) async throws -> Int {
        try await listed(app, profile)["storageBytes"] as? Int ?? -1
    }

    /// Of those, what the quota counts: all but the event log.
    static func quotaBytes(_ app: TestApp, _ profile: String) async throws -> Int {
        let item = try await listed(app, profile)
        return (item["storageBytes"] as? Int ?? -1) - (item["eventLogBytes"] as? Int ?? 0)
    }

    static func listed(_ app: TestApp, _ profile: String) async throws -> [String: Any] {
        let page = try await app.request("GET", "/v1/profiles?limit=1000").json()
        let profiles = page["profiles"] as? [[String: Any]] ?? []
        return profiles.first { $0["name"] as? String == profile } ?? [:]
    }

    @Test("40 keyed PATCHes over 15 values of 60 KB add at most 40 small records, not 40 copies of the profile")
    func keyedPatchAmplification() async throws {
        try await withApp { app in
            let big = String(repeating: "v", count: 60_000)
            for index in 0..<15 {
                #expect(try await app.request("PUT", "/v1/profiles/amp/preferences/k\(index)", json: #"{"value":"\#(big)"}"#).status == 201)
            }
            let before = try await Self.quotaBytes(app, "amp")
            #expect(before > 900_000)
            for index in 0..<40 {
                let answer = try await app.request("PATCH", "/v1/profiles/amp/preferences",
                                                   headers: [("Idempotency-Key", "patch-\(index)"), ("Content-Type", "application/merge-patch+json")],
                                                   body: #"{"n":\#(index)}"#)
                #expect(answer.status == 200)
                #expect(answer.body.count < 300, "the answer says what changed, never the profile's values: \(answer.text)")
            }
            let grown = try await Self.quotaBytes(app, "amp") - before
            // 40 short records, plus the value "n" itself.
            #expect(grown < 40 * 2_048, "grew by \(grown) bytes")
            // A replay gets the answer, byte for byte: it is small enough to be recorded whole.
            let replay = try await app.request("PATCH", "/v1/profiles/amp/preferences",
                                               headers: [("Idempotency-Key", "patch-39"), ("Content-Type", "application/merge-patch+json")],
                                               body: #"{"n":39}"#)
            #expect(replay.status == 200)
            #expect(replay.header("Idempotent-Replayed") == "true")
            #expect(try replay.json()["changed"] as? [String] == ["n"])
        }
    }

    @Test("a write beyond --profile-quota-bytes is 409 quota-exceeded naming quota and usage, and changes nothing")
    func quota() async throws {
        try await withApp({ $0.profileQuotaBytes = 4_000 }) { app in
            let value = String(repeating: "a", count: 2_500)
            let first = try await app.request("PUT", "/v1/profiles/q/preferences/first", json: #"{"value":"\#(value)"}"#)
            #expect(first.status == 201, "\(first.text)")
            let refused = try await app.request("PUT", "/v1/profiles/q/preferences/second", json: #"{"value":"\#(value)"}"#)
            #expect(refused.status == 409)
            #expect(try refused.problemType() == problem("quota-exceeded"))
            let body = try refused.json()
            #expect(body["quota"] as? Int == 4_000)
            #expect((body["usage"] as? Int ?? 0) > 4_000)
            #expect(try await app.request("GET", "/v1/profiles/q/preferences/second").status == 404)
            // The counter holds a fixed size: it is never refused for the quota.
            #expect(try await app.request("POST", "/v1/profiles/q/counter/increment").status == 200)
            // Making room lets the write through.
            #expect((200...204).contains(try await app.request("DELETE", "/v1/profiles/q/preferences/first").status))
            #expect(try await app.request("PUT", "/v1/profiles/q/preferences/second", json: #"{"value":"\#(value)"}"#).status == 201)
            let usage = try await Self.quotaBytes(app, "q")
            #expect(usage > 2_500 && usage <= 4_000, "\(usage)")
            // The listing and /metrics tell every byte: what the quota counts and the event log.
            let item = try await Self.listed(app, "q")
            let (storage, log) = (item["storageBytes"] as? Int ?? -1, item["eventLogBytes"] as? Int ?? -1)
            #expect(log > 2 * 2_500, "the log holds both values' events: \(log)")
            let metrics = String(decoding: try await app.request("GET", "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("navprefs_profile_quota_bytes 4000"))
            #expect(metrics.contains("navprefs_event_log_max_bytes 8388608"))
            #expect(metrics.contains("navprefs_profile_storage_bytes{profile=\"q\"} \(storage)"), "\(metrics.prefix(900))")
            #expect(metrics.contains("navprefs_profile_event_log_bytes{profile=\"q\"} \(log)"), "\(metrics.prefix(900))")
        }
    }

    /// The bytes of `profile`'s event log as the admin listing reports them.
    static func eventLogBytes(_ app: TestApp, _ profile: String) async throws -> Int {
        try await listed(app, profile)["eventLogBytes"] as? Int ?? -1
    }

    @Test("issue 32's amplification runs stay inside the profile's bounds: quota for data, --event-retention-bytes for the log")
    func amplificationStaysInBounds() async throws {
        try await withApp({ $0.profileQuotaBytes = 4_000_000; $0.eventRetentionBytes = 1_000_000 }) { app in
            // 20 defaults PATCHes of ~10 bytes on a set of 960 KB: each logs its key, not the set.
            let defaults = (0..<16).map { #""d\#($0)":"\#(String(repeating: "d", count: 60_000))""# }.joined(separator: ",")
            #expect(try await app.request("PUT", "/v1/profiles/amp/defaults", json: "{\(defaults)}").status == 200)
            let logBefore = try await Self.eventLogBytes(app, "amp")
            for index in 0..<20 {
                #expect(try await app.request("PATCH", "/v1/profiles/amp/defaults", headers: [("Content-Type", "application/merge-patch+json")],
                                              body: #"{"n":\#(index)}"#).status == 200)
            }
            let grown = try await Self.eventLogBytes(app, "amp") - logBefore
            #expect(grown < 20 * 200, "20 small patches logged \(grown) bytes")
            // A patch of a few bytes per key over 30 values of 60 KB, three times: a few KB of events each.
            for index in 0..<30 {
                #expect(try await app.request("PUT", "/v1/profiles/amp/preferences/v\(index)",
                                              json: #"{"value":{"text":"\#(String(repeating: "v", count: 60_000))"}}"#).status == 201)
            }
            for round in 0..<3 {
                let patch = "{" + (0..<30).map { #""v\#($0)":{"r":\#(round)}"# }.joined(separator: ",") + "}"
                let answer = try await app.request("PATCH", "/v1/profiles/amp/preferences", headers: [("Content-Type", "application/merge-patch+json")],
                                                   body: patch)
                #expect(answer.status == 200)
                // What changed: the patch, and about 60 bytes per key of key, version and `from`.
                #expect(answer.body.count < patch.utf8.count + 30 * 80, "answer of \(answer.body.count) bytes for a patch of \(patch.utf8.count)")
            }
            // 100 more values of 60 KB overwritten in turn: the log keeps its bound, the data its quota.
            for index in 0..<100 {
                let status = try await app.request("PUT", "/v1/profiles/amp/preferences/v\(index % 30)",
                                                   json: #"{"value":"\#(String(repeating: "w", count: 60_000 - index))"}"#).status
                #expect(status == 200)
            }
            let log = try await Self.eventLogBytes(app, "amp")
            #expect(log <= 1_000_000 && log > 1_000_000 - 1_000_000 / 16 - 61_000, "the log holds \(log) bytes: at most the bound, at least 15/16 of it less one event")
            let data = try await Self.quotaBytes(app, "amp")
            #expect(data <= 4_000_000, "the data \(data) bytes")
            #expect(try await Self.storageBytes(app, "amp") == data + log)
        }
    }

    @Test("a JSON page of the log holds at most 1 MiB of event data; following lastEventId while hasMore reads every event once")
    func pagesBoundedInBytes() async throws {
        try await withApp { app in
            for index in 0..<40 {
                _ = try await app.request("PUT", "/v1/profiles/pages/preferences/k\(index)",
                                          json: #"{"value":"\#(String(repeating: "p", count: 60_000))"}"#)
            }
            var after = 0, seen: [Int] = [], pages = 0
            while true {
                let page = try await app.request("GET", "/v1/profiles/pages/events?after=\(after)&limit=1000", headers: [("Accept", "application/json")])
                #expect(page.status == 200)
                #expect(page.body.count < (1 << 20) + 4_096, "a page of \(page.body.count) bytes")
                let body = try page.json()
                let ids = (body["events"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                seen += ids
                pages += 1
                after = body["lastEventId"] as? Int ?? after
                guard body["hasMore"] as? Bool == true, pages < 20 else { break }
            }
            #expect(seen == Array(1...40), "\(seen)")
            #expect(pages == 3, "1 MiB holds 17 of these events: \(pages) pages")
        }
    }
}
