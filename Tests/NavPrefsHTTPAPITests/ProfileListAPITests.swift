import Foundation
import HTTPTestClient
import Testing

/// `GET /v1/profiles` over a real socket: pages in byte order, the query checked, admins only.
@Suite("The list of profiles (admin)")
struct ProfileListAPITests {
    static func names(_ response: TestResponse) throws -> [String] {
        let profiles = try #require(try response.json()["profiles"] as? [[String: Any]], "\(response.text)")
        return profiles.compactMap { $0["name"] as? String }
    }

    @Test("every profile once, a page at a time, with when it was made and its newest event id")
    func pages() async throws {
        try await withApp { app in
            for name in ["bob", "Ana", "ana"] {
                #expect(try await app.request("POST", "/v1/profiles/\(name)/counter/increment").status == 200)
            }
            #expect(try await app.request("POST", "/v1/profiles/bob/counter/increment").status == 200)

            let all = try await app.request("GET", "/v1/profiles")
            #expect(all.status == 200)
            #expect(all.header("Content-Type") == "application/json")
            #expect(all.header("Cache-Control") == "no-store")
            #expect(try Self.names(all) == ["Ana", "ana", "bob", "default"])
            #expect(try all.json()["next"] is NSNull)
            let bob = try #require((try all.json()["profiles"] as? [[String: Any]])?.first { $0["name"] as? String == "bob" })
            #expect((bob["latestEventId"] as? NSNumber)?.int64Value == 2)
            let created = try #require(bob["createdAt"] as? String)
            #expect(created.hasSuffix("Z") && created.count == 24, "RFC 3339 with milliseconds: \(created)")

            let first = try await app.request("GET", "/v1/profiles?limit=2")
            #expect(try Self.names(first) == ["Ana", "ana"])
            #expect(try first.json()["next"] as? String == "ana")
            let second = try await app.request("GET", "/v1/profiles?limit=2&after=ana")
            #expect(try Self.names(second) == ["bob", "default"])
            #expect(try second.json()["next"] is NSNull)
            #expect(try await app.request("HEAD", "/v1/profiles").status == 200)
        }
    }

    @Test("a limit out of range, a name that cannot be one, are 400 invalid-query")
    func badQueries() async throws {
        try await withApp { app in
            for query in ["limit=0", "limit=1001", "limit=ten", "limit=", "limit=99999999999999999999", "after=-x", "after=",
                          "after=" + String(repeating: "a", count: 65)] {
                let response = try await app.request("GET", "/v1/profiles?" + query)
                #expect(response.status == 400, "\(query): \(response.status)")
                #expect((try? response.problemType()) == problem("invalid-query"), "\(query)")
            }
            #expect(try await app.request("GET", "/v1/profiles?limit=1000&after=zzz").status == 200)
            #expect(try await app.request("DELETE", "/v1/profiles").status == 405)
        }
    }

    @Test("admins only once tokens exist: 401 without a token, 403 for a profile token")
    func adminOnly() async throws {
        try await withApp { app in
            let adminToken = try await app.makeToken().token
            let made = try await app.request("POST", "/v1/admin/tokens", headers: [("Authorization", "Bearer " + adminToken)],
                                             json: #"{"profile":"ana"}"#)
            let anaToken = try #require(try made.json()["token"] as? String)

            #expect(try await app.request("GET", "/v1/profiles").status == 401)
            let refused = try await app.request("GET", "/v1/profiles", headers: [("Authorization", "Bearer " + anaToken)])
            #expect(refused.status == 403)
            #expect(try refused.problemType() == problem("forbidden"))
            let listed = try await app.request("GET", "/v1/profiles", headers: [("Authorization", "Bearer " + adminToken)])
            #expect(listed.status == 200)
            #expect(try Self.names(listed) == ["default"], "a token for ana does not make the profile")
        }
    }
}
