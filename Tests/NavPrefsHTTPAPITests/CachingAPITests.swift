import Foundation
import HTTPTestClient
import Testing
import StoreTestSupport

/// What caches are told (RFC 9111), over a real socket: every answer carrying state that can
/// change says `no-cache` (so a cache revalidates with the ETag), `private, no-cache` when a
/// token was used, and a 304 carries the ETag and the 200's length or none (RFC 9110 §8.6).
@Suite("Caching: Cache-Control on mutable state, honest 304s")
struct CachingAPITests {
    /// A profile with a value, a default, the font, the counter and one session; answers every
    /// GET path of it that carries state and has an ETag.
    static func populate(_ app: TestApp) async throws -> [String] {
        let base = "/v1/profiles/ana"
        _ = try await app.request("PUT", base + "/preferences/k", json: #"{"value":{"a":1}}"#)
        _ = try await app.request("PATCH", base + "/defaults", json: #"{"d":true}"#)
        _ = try await app.request("POST", base + "/counter/increment")
        let id = try await app.createSession()
        return [base + "/counter", base + "/font", base + "/preferences", base + "/preferences/k", base + "/defaults",
                base + "/state", base + "/sessions/" + id, sessionPath(id, "/navigation-bar"), sessionPath(id, "/gestures")]
    }

    @Test("RFC 9111 §5.2.2.4: every answer carrying mutable state with an ETag says no-cache")
    func noCache() async throws {
        try await withApp { app in
            for path in try await Self.populate(app) {
                #expect(try await app.request("GET", path).header("Cache-Control") == "no-cache", "\(path)")
            }
            // Writes too: their answers carry the new state and its ETag.
            #expect(try await app.request("POST", "/v1/profiles/ana/counter/increment").header("Cache-Control") == "no-cache")
        }
    }

    @Test("RFC 9111 §5.2.2.5: state without a validator (the lists, errors) says no-store, nothing to revalidate with")
    func noStoreWithoutValidator() async throws {
        try await withApp { app in
            _ = try await app.createSession()
            #expect(try await app.request("GET", "/v1/profiles/ana/sessions").header("Cache-Control") == "no-store")
            #expect(try await app.request("GET", "/v1/profiles").header("Cache-Control") == "no-store")
            // Errors: a 404 is heuristically cacheable without it (RFC 9111 §4.2.2).
            #expect(try await app.request("GET", "/v1/profiles/ana/preferences/none").header("Cache-Control") == "no-store")
            #expect(try await app.request("GET", "/nowhere").header("Cache-Control") == "no-store")
            // A 412 names the current ETag: revalidatable.
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment")
            let refused = try await app.request("PUT", "/v1/profiles/ana/counter", headers: [("If-Match", "\"99\"")], json: #"{"value":1}"#)
            #expect(refused.status == 412)
            #expect(refused.header("Cache-Control") == "no-cache")
        }
    }

    @Test("RFC 9111 §5.2.2.7: with a token the answer is private, no-cache; routes that chose their own keep it")
    func privateWithToken() async throws {
        try await withApp { app in
            let paths = try await Self.populate(app)
            let token = try await app.makeToken().token
            for path in paths {
                let response = try await app.request("GET", path, headers: [("Authorization", "Bearer \(token)")])
                #expect(response.status == 200, "\(path)")
                #expect(response.header("Cache-Control") == "private, no-cache", "\(path)")
            }
            #expect(try await app.request("GET", "/healthz").header("Cache-Control") == "no-store")
            #expect(try await app.request("GET", "/openapi.json").header("Cache-Control") == "no-cache")
        }
    }

    @Test("RFC 9110 §8.6/§15.4.5: a 304 carries the ETag, Cache-Control and the 200's Content-Length, no body, and keeps the connection", .overSockets("a 304 keeps its keep-alive connection: framing on the wire"))
    func honest304() async throws {
        try await withApp { app in
            let paths = try await Self.populate(app) + ["/openapi.yaml"]
            let connection = try app.connection()
            for path in paths {
                let full = try await connection.request("GET", path)
                let etag = try #require(full.header("ETag"), "\(path)")
                try await connection.send("GET", path, headers: [("If-None-Match", etag)])
                let head = try await connection.readHead()  // nothing but the head may follow
                #expect(head.status == 304, "\(path)")
                #expect(head.header("ETag") == etag, "\(path)")
                #expect(head.header("Cache-Control") == "no-cache", "\(path)")
                #expect(head.headers.filter { $0.0.lowercased() == "content-length" }.map(\.1) == [String(full.body.count)],
                        "\(path): the 200's length, \(full.body.count)")
                #expect(head.header("Connection") == nil, "\(path)")
            }
            // The connection still works: no stray body bytes were sent after any 304.
            #expect(try await connection.request("GET", "/healthz").status == 200)
        }
    }
}
