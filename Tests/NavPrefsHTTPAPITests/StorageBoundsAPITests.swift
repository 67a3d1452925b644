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
    /// The bytes `profile` holds, as the admin listing reports them.
    static func storageBytes(_ app: TestApp, _ profile: String) async throws -> Int {
        let page = try await app.request("GET", "/v1/profiles?limit=1000").json()
        let profiles = page["profiles"] as? [[String: Any]] ?? []
        return profiles.first { $0["name"] as? String == profile }?["storageBytes"] as? Int ?? -1
    }

    @Test("40 keyed PATCHes over 15 values of 60 KB add at most 40 small records, not 40 copies of the profile")
    func keyedPatchAmplification() async throws {
        try await withApp { app in
            let big = String(repeating: "v", count: 60_000)
            for index in 0..<15 {
                #expect(try await app.request("PUT", "/v1/profiles/amp/preferences/k\(index)", json: #"{"value":"\#(big)"}"#).status == 201)
            }
            let before = try await Self.storageBytes(app, "amp")
            #expect(before > 900_000)
            for index in 0..<40 {
                let answer = try await app.request("PATCH", "/v1/profiles/amp/preferences",
                                                   headers: [("Idempotency-Key", "patch-\(index)"), ("Content-Type", "application/merge-patch+json")],
                                                   body: #"{"n":\#(index)}"#)
                #expect(answer.status == 200)
                #expect(answer.body.count < 300, "the answer says what changed, never the profile's values: \(answer.text)")
            }
            let grown = try await Self.storageBytes(app, "amp") - before
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
            let usage = try await Self.storageBytes(app, "q")
            #expect(usage > 2_500 && usage <= 4_000, "\(usage)")
            let metrics = String(decoding: try await app.request("GET", "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("navprefs_profile_quota_bytes 4000"))
            #expect(metrics.contains("navprefs_profile_storage_bytes{profile=\"q\"} \(usage)"), "\(metrics.prefix(600))")
        }
    }
}
