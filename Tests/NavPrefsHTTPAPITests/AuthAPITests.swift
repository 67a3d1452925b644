import Foundation
import HTTPTestClient
@testable import NavPrefsHTTPAPI
import NavPrefsApp
import NavPrefsCore
import NavPrefsStore
import Testing
import NavPrefsSQLite
import NavPrefsCrypto
import MicroHTTPServer

/// Access tokens over a real socket (issue 8): every route with no token, a wrong token, another
/// profile's token and an admin token; stream tokens for EventSource; nothing of one profile
/// reaching another's token.
@Suite("Access tokens: who may call what")
struct AuthAPITests {
    struct Tokens {
        let admin: String
        let ana: String
        let bob: String
    }

    static let unknownToken = "npt_000000000000_" + String(repeating: "0", count: 64)
    static let bobSecret = "bob-secret-4242"

    /// Makes the first admin token as the command line does (on the store: the open mode's
    /// admin API refuses to make it), the others through the admin API, and gives profile bob data
    /// that ana's token must never see.
    func setUp(_ app: TestApp) async throws -> Tokens {
        func make(_ body: String, as admin: String? = nil) async throws -> String {
            let response = try await app.request("POST", "/v1/admin/tokens", headers: admin.map { [("Authorization", "Bearer " + $0)] } ?? [], json: body)
            try #require(response.status == 201, "\(response.text)")
            return try #require(try response.json()["token"] as? String)
        }
        let first = try #require(AccessToken.make(profile: nil, label: "ops", now: 1))
        try await app.app.tokens.createToken(first.record)
        await app.app.api.startAuthentication()  // as the refresh every few seconds would
        let admin = first.token
        // The first token turns authentication on: the others need it.
        let tokens = Tokens(admin: admin, ana: try await make(#"{"profile":"ana"}"#, as: admin),
                            bob: try await make(#"{"profile":"bob"}"#, as: admin))
        let bearer = [("Authorization", "Bearer " + admin)]
        #expect(try await app.request("PUT", "/v1/profiles/bob/preferences/secret", headers: bearer,
                                      json: "{\"value\":\"\(Self.bobSecret)\"}").status == 201)
        #expect(try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: bearer).status == 200)
        return tokens
    }

    /// A concrete path for `template`, on `profile`.
    static func path(_ template: String, profile: String) -> String {
        template.replacingOccurrences(of: "{profile}", with: profile)
            .replacingOccurrences(of: "{session}", with: "0123456789abcdef0123456789abcdef")
            .replacingOccurrences(of: "{key}", with: "secret")
            .replacingOccurrences(of: "{id}", with: "000000000000")
            .replacingOccurrences(of: "/swagger-ui/{file}", with: "/swagger-ui/LICENSE")
            .replacingOccurrences(of: "{file}", with: "console.css")
    }

    @Test("open on loopback while no token exists; the first token turns authentication on")
    func openUntilFirstToken() async throws {
        try await withApp { app in
            #expect(try await app.request("POST", "/v1/profiles/ana/counter/increment").status == 200)
            _ = try await setUp(app)
            let refused = try await app.request("POST", "/v1/profiles/ana/counter/increment")
            #expect(refused.status == 401)
            #expect(try refused.problemType() == problem("unauthorized"))
            #expect(refused.header("WWW-Authenticate") == #"Bearer realm="navprefs""#)
            #expect(try await app.request("GET", "/healthz").status == 200, "health stays open")
            #expect(try await app.request("GET", "/readyz").status == 200, "readiness stays open")
        }
    }

    @Test("every route: no token 401, a wrong token 401, another profile's token 404 (403 on admin routes), an admin token passes", .overSockets("the event-stream routes are opened over TCP (SSEClient)"))
    func everyRoute() async throws {
        try await withApp { app in
            let tokens = try await setUp(app)
            let table = app.app.api.routeTable
            #expect(table.count >= 30)
            for route in table {
                for method in route.methods where method != "OPTIONS" {
                    // Health, and the console's files and the contract: they hold no data.
                    let open = ["/healthz", "/readyz", "/", "/openapi.yaml", "/openapi.json"].contains(route.template)
                        || route.template.hasPrefix("/console/")
                    let onProfile = route.template.hasPrefix("/v1/profiles/{profile}")
                    let bobPath = Self.path(route.template, profile: "bob")
                    let body = ["POST", "PUT", "PATCH"].contains(method) ? "{}" : nil
                    let isStream = method == "GET" && route.template == "/v1/profiles/{profile}/events"
                    func send(_ token: String?, _ path: String) async throws -> TestResponse {
                        var headers: [(String, String)] = token.map { [("Authorization", $0)] } ?? []
                        // A stream that opens does not end: its head is the answer.
                        if isStream { return try await SSEClient.open(port: app.port, path: path, headers: headers).head }
                        if body != nil { headers.append(("Content-Type", "application/json")) }
                        return try await app.request(method, path, headers: headers, body: body)
                    }
                    let label = "\(method) \(route.template)"
                    if open {
                        #expect(try await send(nil, bobPath).status == 200, "\(label) is open")
                        continue
                    }
                    let none = try await send(nil, bobPath)
                    #expect(none.status == 401, "\(label) without a token: \(none.status)")
                    #expect(none.header("WWW-Authenticate") == #"Bearer realm="navprefs""#, "\(label)")
                    #expect((try? none.problemType()) == problem("unauthorized"), "\(label)")
                    for wrong in ["Bearer " + Self.unknownToken, "Bearer " + tokens.ana + "0", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Bearer"] {
                        let response = try await send(wrong, bobPath)
                        #expect(response.status == 401, "\(label) with '\(wrong.prefix(20))': \(response.status)")
                        #expect(response.header("WWW-Authenticate")?.contains("invalid_token") == true, "\(label)")
                    }
                    let foreign = try await send("Bearer " + tokens.ana, bobPath)
                    if onProfile {
                        #expect(foreign.status == 404, "\(label) with another profile's token: \(foreign.status)")
                        #expect((try? foreign.problemType()) == problem("profile-not-found"), "\(label)")
                        #expect(foreign.text.contains("visible with this token"), "\(label)")
                    } else {
                        #expect(foreign.status == 403, "\(label) with a profile token: \(foreign.status)")
                        #expect((try? foreign.problemType()) == problem("forbidden"), "\(label)")
                    }
                    #expect(!foreign.text.contains(Self.bobSecret), "\(label) leaked bob's data")
                    let admin = try await send("Bearer " + tokens.admin, bobPath)
                    #expect(![401, 403].contains(admin.status) && !admin.text.contains("visible with this token"),
                            "\(label) with the admin token: \(admin.status) \(admin.text.prefix(200))")
                    if onProfile {
                        let own = try await send("Bearer " + tokens.ana, Self.path(route.template, profile: "ana"))
                        #expect(![401, 403].contains(own.status) && !own.text.contains("visible with this token"),
                                "\(label) with its own profile's token: \(own.status)")
                    }
                }
            }
        }
    }

    @Test("a profile token reads the same 404 for another profile whether it exists or not")
    func noExistenceOracle() async throws {
        try await withApp { app in
            let tokens = try await setUp(app)
            let bearer = [("Authorization", "Bearer " + tokens.ana)]
            let existing = try await app.request("GET", "/v1/profiles/bob/preferences", headers: bearer)
            let missing = try await app.request("GET", "/v1/profiles/nobody/preferences", headers: bearer)
            #expect(existing.status == 404 && missing.status == 404)
            #expect(existing.text.replacingOccurrences(of: "bob", with: "X") == missing.text.replacingOccurrences(of: "nobody", with: "X"))
        }
    }

    @Test("an Authorization field that is not 'Bearer <token>' is 401, and the answer says how to send the token")
    func notBearer() async throws {
        try await withApp { app in
            let tokens = try await setUp(app)
            for field in [tokens.admin, "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Bearer", "Token " + tokens.admin] {
                let refused = try await app.request("GET", "/v1/profiles/ana/counter", headers: [("Authorization", field)])
                #expect(refused.status == 401, "\(field.prefix(12))")
                #expect(refused.header("WWW-Authenticate") == #"Bearer realm="navprefs", error="invalid_token""#)
                #expect(try refused.json()["detail"] as? String == "The Authorization field must read 'Bearer <token>': send 'Authorization: Bearer npt_...'.",
                        "\(field.prefix(12))")
            }
            let malformed = try await app.request("GET", "/v1/profiles/ana/counter", headers: [("Authorization", "Bearer npt_x")])
            #expect(try malformed.json()["detail"] as? String == "The token is not valid: unknown, revoked, expired or malformed.")
            #expect(try await app.request("GET", "/v1/profiles/ana/counter", headers: [("Authorization", "Bearer " + tokens.admin)]).status == 200)
        }
    }

    @Test("revoked tokens stop at once; the list shows ids and scopes, never a secret")
    func listAndRevoke() async throws {
        try await withApp { app in
            let tokens = try await setUp(app)
            let admin = [("Authorization", "Bearer " + tokens.admin)]
            let list = try await app.request("GET", "/v1/admin/tokens", headers: admin)
            #expect(list.status == 200)
            let items = try #require(try list.json()["tokens"] as? [[String: Any]])
            // Oldest first; tokens made in the same millisecond (setUp makes three at once) by id.
            #expect(items.count == 3)
            #expect(items.filter { $0["admin"] as? Bool == true }.map { $0["profile"] is NSNull || $0["profile"] == nil } == [true])
            #expect(items.compactMap { $0["profile"] as? String }.sorted() == ["ana", "bob"])
            let order = items.map { "\($0["createdAt"] as? String ?? "?") \($0["id"] as? String ?? "?")" }
            #expect(order == order.sorted(), "not oldest first, ties by id: \(order)")
            for token in [tokens.admin, tokens.ana, tokens.bob] {
                #expect(!list.text.contains(token.suffix(64)), "a secret is listed")
            }
            let anaID = try #require(AccessToken.id(of: tokens.ana))
            #expect(try await app.request("DELETE", "/v1/admin/tokens/\(anaID)", headers: admin).status == 204)
            let again = try await app.request("DELETE", "/v1/admin/tokens/\(anaID)", headers: admin)
            #expect(again.status == 404)
            #expect(try again.problemType() == problem("token-not-found"))
            #expect(try await app.request("GET", "/v1/profiles/ana/counter", headers: [("Authorization", "Bearer " + tokens.ana)]).status == 401)
            #expect(try await app.request("GET", "/v1/profiles/bob/preferences", headers: [("Authorization", "Bearer " + tokens.bob)]).status == 200)
        }
    }

    @Test("the admin API refuses bodies that name no scope, both scopes, or unknown members")
    func createBodies() async throws {
        try await withApp { app in
            let tokens = try await setUp(app)
            let bearer = [("Authorization", "Bearer " + tokens.admin)]
            for body in ["{}", #"{"profile":"ana","admin":true}"#, #"{"admin":false}"#, #"{"profile":"bad name"}"#,
                         #"{"profile":"ana","extra":1}"#, #"{"profile":"ana","label":"\u0007"}"#, "[]", #"{"admin":"yes"}"#,
                         // 201 code points in one grapheme cluster: the limit counts code points.
                         "{\"profile\":\"ana\",\"label\":\"e" + String(repeating: "\\u0301", count: 200) + "\"}"] {
                let response = try await app.request("POST", "/v1/admin/tokens", headers: bearer, json: body)
                #expect(response.status == 400, "\(body): \(response.status) \(response.text)")
            }
            let listed = try await app.request("GET", "/v1/admin/tokens", headers: bearer)
            #expect((try listed.json()["tokens"] as? [Any])?.count == 3, "nothing more was stored")
        }
    }

    @Test("stream tokens: the way in for EventSource, for one profile's events only, by query or cookie", .overSockets("stream tokens open event streams over TCP (SSEClient)"))
    func streamTokens() async throws {
        try await withApp { app in
            let tokens = try await setUp(app)
            let issued = try await app.request("POST", "/v1/profiles/ana/events/token", headers: [("Authorization", "Bearer " + tokens.ana)])
            #expect(issued.status == 201)
            #expect(issued.header("Cache-Control") == "no-store")
            let stream = try #require(try issued.json()["token"] as? String)
            #expect(issued.header("Set-Cookie")?.hasPrefix("navprefs_stream=\(stream); Path=/v1/profiles/ana/events;") == true)
            #expect(try await app.request("POST", "/v1/profiles/bob/events/token", headers: [("Authorization", "Bearer " + tokens.ana)]).status == 404)

            let byQuery = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?last_event_id=0&access_token=\(stream)")
            #expect(byQuery.head.status == 200)
            let byCookie = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events",
                                                    headers: [("Cookie", "theme=dark; navprefs_stream=\(stream)")])
            #expect(byCookie.head.status == 200)
            // Bob's change is not ana's event; ana's is, and it is the next one ana's stream sees.
            let admin = [("Authorization", "Bearer " + tokens.admin)]
            _ = try await app.request("PUT", "/v1/profiles/bob/font", headers: admin, json: #"{"sliderValue":9}"#)
            _ = try await app.request("PUT", "/v1/profiles/ana/font", headers: admin, json: #"{"sliderValue":2}"#)
            let seen = try await byQuery.messages { $0.event == "refresh" }
            #expect(seen.filter { $0.id != nil }.allSatisfy { (try? $0.json()["profile"] as? String) == "ana" })
            #expect(!seen.map(\.dataText).joined().contains(Self.bobSecret))

            // The signature's last digit changed (to a digit it is not: a fixed "0" would equal it one time in 16).
            let tampered = stream.dropLast() + (stream.hasSuffix("0") ? "1" : "0")
            for (path, label) in [("/v1/profiles/bob/events?access_token=\(stream)", "another profile"),
                                  ("/v1/profiles/ana/events?access_token=\(tampered)", "a tampered signature"),
                                  ("/v1/profiles/ana/events?access_token=nps_1_616e61_00", "garbage")] {
                let refused = try await SSEClient.open(port: app.port, path: path)
                #expect(refused.head.status == (label == "another profile" ? 404 : 401), "\(label): \(refused.head.status)")
            }
            #expect(try await app.request("GET", "/v1/profiles/ana/counter?access_token=\(stream)").status == 401,
                    "a stream token opens the stream, nothing else")
        }
    }

    @Test("no token, bearer or stream, ever appears in a log line", .overSockets("an event stream over TCP (SSEClient)"))
    func tokensStayOutOfLogs() async throws {
        try await withApp { app in
            let tokens = try await setUp(app)
            let issued = try await app.request("POST", "/v1/profiles/ana/events/token", headers: [("Authorization", "Bearer " + tokens.ana)])
            let stream = try #require(try issued.json()["token"] as? String)
            _ = try await app.request("GET", "/v1/profiles/ana/counter", headers: [("Authorization", "Bearer " + tokens.ana + "x")])
            let client = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?access_token=\(stream)")
            #expect(client.head.status == 200)
            let log = app.logLines().joined(separator: "\n")
            #expect(log.contains("\"route\":\"/v1/profiles/{profile}/events\""))
            for secret in [tokens.admin, tokens.ana, tokens.bob, stream] {
                #expect(!log.contains(secret.suffix(40)))
            }
        }
    }

    @Test("a token stored by someone else (the command line, another instance) turns authentication on at the next look")
    func tokenFromElsewhere() async throws {
        try await withApp { app in
            #expect(try await app.request("GET", "/v1/profiles/default/counter").status == 200)
            let made = try #require(AccessToken.make(profile: nil, label: "cli", now: 0))
            try await app.app.tokens.createToken(made.record)
            await app.app.api.startAuthentication()
            #expect(try await app.request("GET", "/v1/profiles/default/counter").status == 401)
            #expect(try await app.request("GET", "/v1/profiles/default/counter", headers: [("Authorization", "Bearer " + made.token)]).status == 200)
        }
    }

    @Test("beyond loopback without --allow-unauthenticated, tokens are needed even before one exists")
    func alwaysRequired() async throws {
        try await withAuthenticator(alwaysRequired: true) { _, authenticator in
            #expect(authenticator.isRequired)
            #expect(!authenticator.hasTokens)
        }
    }

    @Test("two token lists read at once: the older, taken in last, does not turn the open mode back on")
    func staleListTakenInLast() async throws {
        try await withAuthenticator(alwaysRequired: false) { store, authenticator in
            #expect(!authenticator.isRequired)
            // The periodic look starts reading (empty), the first token is made elsewhere (the
            // command line), a second read sees it and is taken in first.
            let olderRead = ContinuousClock.now
            let made = try #require(AccessToken.make(profile: nil, label: "admin", now: 1))
            try await store.createToken(made.record)
            #expect(authenticator.learn(existing: [made.record.id], listedAt: ContinuousClock.now), "the first token appeared")
            #expect(authenticator.isRequired)
            #expect(!authenticator.learn(existing: [], listedAt: olderRead))
            #expect(authenticator.isRequired, "a list read before the newest one taken in reopened the API")
            // A newer list still counts: the token revoked elsewhere, the open mode again.
            #expect(try await store.revokeToken(id: made.record.id))
            #expect(!authenticator.learn(existing: [], listedAt: ContinuousClock.now))
            #expect(!authenticator.isRequired)
        }
    }

    @Test("a token made here while the token list is read stays valid, and keeps authentication on")
    func tokenMadeDuringRefresh() async throws {
        try await withAuthenticator(alwaysRequired: false) { store, authenticator in
            #expect(!authenticator.isRequired)
            func verdict(_ token: String) async throws -> Int {
                let head = HTTPRequestHead(method: "GET", path: "/v1/profiles/ana/counter",
                                           headers: HTTPHeaders([("Authorization", "Bearer " + token)]), rawPath: "/v1/profiles/ana/counter")
                let decision = authenticator.decide(.profile, profile: "ana", head: head)
                switch decision {
                case .allow: return 200
                case .deny(let error): return error.type.status
                case .check(let look):
                    switch try await look() {
                    case .allow: return 200
                    case .deny(let error): return error.type.status
                    }
                }
            }
            // The refresh's list is read before the token exists, and taken in after it was made.
            let listedBefore = ContinuousClock.now
            let made = try #require(AccessToken.make(profile: try ProfileName("ana"), label: "phone", now: 1))
            try await store.createToken(made.record)
            authenticator.created(made.record)
            #expect(!authenticator.learn(existing: [], listedAt: listedBefore))
            #expect(authenticator.isRequired, "the open mode came back with a stale empty list")
            #expect(try await verdict(made.token) == 200, "the token made during the refresh read as revoked")
            #expect(try await verdict(Self.unknownToken) == 401)
            // A list read after the token was made, without it: revoked elsewhere, forgotten here.
            #expect(!authenticator.learn(existing: [], listedAt: ContinuousClock.now))
            #expect(try await verdict(made.token) == 401)
        }
    }
    /// An authenticator over a SQLite store of its own in a temporary directory, after its
    /// first look at the token list; the store is closed and the directory removed afterwards.
    func withAuthenticator(alwaysRequired: Bool, _ body: (SQLiteStore, Authenticator) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navprefs-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = SQLiteStore(.init(path: directory.appendingPathComponent("auth.sqlite").path))
        try store.start()
        let authenticator = Authenticator(store: store, alwaysRequired: alwaysRequired)
        await authenticator.refresh()
        do { try await body(store, authenticator) } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}

/// The token formats, directly: parsing, matching, signing, expiry.
@Suite("Token formats")
struct TokenFormatTests {
    @Test("access tokens: npt_ + 12 hex id + _ + 64 hex secret; only the exact token matches its record")
    func accessTokens() throws {
        let made = try #require(AccessToken.make(profile: try ProfileName("ana"), label: "", now: 1))
        #expect(made.token.count == 81)
        #expect(AccessToken.id(of: made.token) == made.record.id)
        #expect(made.record.hash == Crypto.sha256Hex(made.token))
        #expect(AccessToken.matches(made.token, made.record))
        var tampered = Array(made.token)
        tampered[40] = tampered[40] == "a" ? "b" : "a"
        #expect(!AccessToken.matches(String(tampered), made.record))
        for malformed in ["", "npt_", made.token + "0", String(made.token.dropLast()), made.token.uppercased(),
                          made.token.replacingOccurrences(of: "npt_", with: "npx_")] {
            #expect(AccessToken.id(of: malformed) == nil, "\(malformed)")
        }
        #expect(AccessToken.make(profile: nil, label: "", now: 1)?.token != AccessToken.make(profile: nil, label: "", now: 1)?.token)
    }

    @Test("SHA-256 and HMAC-SHA-256 from libcrypto give the standard test vectors")
    func vectors() {
        #expect(Crypto.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // RFC 4231 test case 2.
        #expect(Crypto.hmacSHA256Hex(key: "Jefe", "what do ya want for nothing?")
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(Crypto.constantTimeEqual("abc", "abc"))
        #expect(!Crypto.constantTimeEqual("abc", "abd"))
        #expect(!Crypto.constantTimeEqual("abc", "abcd"))
        #expect(!Crypto.constantTimeEqual("", ""))
    }

    @Test("stream tokens name one profile and their issuer, expire, refuse expiries beyond the lifetime, and fail under another key or any edit")
    func streamTokens() throws {
        let ana = try ProfileName("ana")
        let token = StreamToken.make(profile: ana, issuer: "0123456789ab", expiry: 1_000, key: "k1")
        let grant = StreamToken.Grant(profile: ana, issuer: "0123456789ab", expiry: 1_000)
        #expect(StreamToken.grant(of: token, key: "k1", now: 999) == grant)
        #expect(StreamToken.grant(of: token, key: "k1", now: 1_000) == grant)
        #expect(StreamToken.grant(of: token, key: "k1", now: 1_001) == nil, "expired")
        #expect(StreamToken.grant(of: token, key: "k1", now: 1_000 - 900 - 61) == nil, "an expiry beyond now + lifetime + skew: not made by any instance")
        #expect(StreamToken.grant(of: token, key: "k2", now: 999) == nil, "another key")
        let longer = token.replacingOccurrences(of: "nps_1000_", with: "nps_1001_")
        #expect(StreamToken.grant(of: longer, key: "k1", now: 999) == nil, "a later expiry breaks the signature")
        let otherIssuer = token.replacingOccurrences(of: "_0123456789ab_", with: "_0123456789ac_")
        #expect(StreamToken.grant(of: otherIssuer, key: "k1", now: 999) == nil, "so does another issuer")
        #expect(StreamToken.grant(of: StreamToken.make(profile: ana, issuer: nil, expiry: 1_000, key: "k1"), key: "k1", now: 999)?.issuer == "open")
        #expect(StreamToken.grant(of: "nps_1000_zz_open_00", key: "k1", now: 0) == nil)
        #expect(StreamToken.grant(of: "nps_", key: "k1", now: 0) == nil)
    }
}
