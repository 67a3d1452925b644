import Foundation
import HTTPTestClient
@testable import NavPrefsHTTPAPI
import NavPrefsApp
import NavPrefsCore
import NavPrefsCrypto
import NavPrefsStore
import Testing

/// What an attack on the running service found (issue 13), each over a real socket, each failing
/// on the code before the fix: the item numbers are the issue's. Framing (item 5) and the
/// transport's own limits are proven in MicroHTTPServerTests; the attack itself runs in
/// `scripts/hostile`.
@Suite("Security: an attack's findings, kept fixed")
struct SecurityAPITests {
    static func makeToken(_ app: TestApp, profile: String?) async throws -> (token: String, id: String) {
        try await app.makeToken(profile: profile)
    }

    static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer " + token)] }

    static func counter(_ app: TestApp, _ profile: String = "ana", headers: [(String, String)] = []) async throws -> Int64? {
        try await app.request("GET", "/v1/profiles/\(profile)/counter", headers: headers).int("value")
    }

    // MARK: 1. The open mode, from a web page

    @Test("1: a Host that is not loopback or listed is 421 and changes nothing (DNS rebinding); probes answer any Host")
    func foreignHost() async throws {
        try await withApp { app in
            let rebound = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: [("Host", "evil.example:\(app.port)")])
            #expect(rebound.status == 421)
            #expect(try rebound.problemType() == problem("host-not-allowed"))
            #expect(try await Self.counter(app) == 0)
            for host in ["localhost:\(app.port)", "LOCALHOST", "localhost.", "app.localhost:\(app.port)", "127.0.0.1", "127.1.2.3:\(app.port)", "[::1]:\(app.port)"] {
                #expect(try await app.request("GET", "/v1/profiles/ana/counter", headers: [("Host", host)]).status == 200, "\(host)")
            }
            for host in ["evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "[::2]:\(app.port)", "0.0.0.0", "128.0.0.1"] {
                #expect(try await app.request("GET", "/v1/profiles/ana/counter", headers: [("Host", host)]).status == 421, "\(host)")
            }
            for probe in ["/healthz", "/readyz"] {
                #expect(try await app.request("GET", probe, headers: [("Host", "10.1.2.3:8080")]).status == 200, "\(probe)")
            }
        }
        try await withApp({ $0.allowedHosts = ["prefs.example"] }) { (app: TestApp) async throws in
            #expect(try await app.request("GET", "/v1/profiles/ana/counter", headers: [("Host", "Prefs.Example:443")]).status == 200)
            #expect(try await app.request("GET", "/v1/profiles/ana/counter", headers: [("Host", "other.example")]).status == 421)
        }
    }

    @Test("1: with tokens required and no host listed, any Host is answered; listed hosts still bind")
    func hostsWithTokens() throws {
        var configuration = Configuration()
        configuration.host = "0.0.0.0"
        #expect(configuration.effectiveAllowedHosts == ["*"])
        configuration.allowedHosts = ["prefs.example"]
        #expect(configuration.effectiveAllowedHosts == ["prefs.example"])
        configuration.host = "127.0.0.1"
        configuration.allowedHosts = []
        #expect(configuration.effectiveAllowedHosts.isEmpty, "the open mode answers loopback names only")
    }

    @Test("1: a write with a foreign Origin is 403 and changes nothing; the same origin and listed origins write")
    func foreignOrigin() async throws {
        try await withApp { app in
            // The body-less POSTs a cross-site form can send without a preflight, and one with a body.
            for (method, path) in [("POST", "/v1/profiles/ana/counter/increment"), ("POST", "/v1/profiles/ana/counter/reset"),
                                   ("DELETE", "/v1/profiles/ana/preferences/k")] {
                for origin in ["https://evil.example", "null", "http://127.0.0.1:1"] {
                    let forged = try await app.request(method, path, headers: [("Origin", origin)])
                    #expect(forged.status == 403, "\(method) \(path) from \(origin)")
                    #expect(try forged.problemType() == problem("foreign-origin"))
                }
            }
            let form = try await app.request("PUT", "/v1/profiles/ana/counter", headers: [("Origin", "https://evil.example"), ("Content-Type", "text/plain")],
                                             body: #"{"value":7}"#)
            #expect(form.status == 403)
            #expect(try await Self.counter(app) == 0, "nothing was written")
            let sameOrigin = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: [("Origin", "http://127.0.0.1:\(app.port)")])
            #expect(sameOrigin.status == 200, "the console's own page writes")
            let read = try await app.request("GET", "/v1/profiles/ana/counter", headers: [("Origin", "https://evil.example")])
            #expect(read.status == 200 && read.header("Access-Control-Allow-Origin") == nil, "a read is answered, and the browser keeps it from the page")
        }
        try await withApp({ $0.corsOrigins = CORSPolicy(parsing: "https://app.example") }) { (app: TestApp) async throws in
            #expect(try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: [("Origin", "https://app.example")]).status == 200)
            #expect(try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: [("Origin", "https://evil.example")]).status == 403)
        }
        // `*` trusts every page only once a page cannot write without a token it does not have.
        try await withApp({ $0.corsOrigins = CORSPolicy(parsing: "*") }) { app in
            #expect(try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: [("Origin", "https://evil.example")]).status == 403)
            let admin = try await Self.makeToken(app, profile: nil)
            let withToken = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: [("Origin", "https://evil.example")] + Self.bearer(admin.token))
            #expect(withToken.status == 200)
        }
    }

    @Test("1: while no token exists the admin API makes none; the first is the command line's")
    func noFirstTokenByAPI() async throws {
        try await withApp { app in
            for body in [#"{"admin":true}"#, #"{"profile":"ana"}"#] {
                let refused = try await app.request("POST", "/v1/admin/tokens", json: body)
                #expect(refused.status == 403)
                #expect(try refused.json()["detail"] as? String == "While no token exists, the first admin token is made with the command line: navprefs tokens create --admin.")
            }
            #expect((try await app.request("GET", "/v1/admin/tokens").json()["tokens"] as? [Any])?.isEmpty == true)
            #expect(try await app.request("GET", "/v1/profiles/ana/counter").status == 200, "still open")
        }
    }

    // MARK: 2. Bodies of requests that will be refused

    @Test("2: a request that will be refused is answered at its headers: no 100 Continue, no body read", .overSockets("answered at the headers: no 100 Continue, no body read, on a connection"))
    func refusedBeforeBody() async throws {
        try await withApp { app in
            let ana = try await Self.makeToken(app, profile: "ana")
            let unknown = "npt_0123456789ab_" + String(repeating: "1", count: 64)
            let cases: [(headers: [(String, String)], method: String, path: String, status: Int)] = [
                ([], "PUT", "/v1/profiles/ana/preferences/k", 401),
                (Self.bearer(unknown), "PUT", "/v1/profiles/ana/preferences/k", 401),  // looked up in the store first
                (Self.bearer(ana.token), "PUT", "/v1/profiles/bob/preferences/k", 404),
                (Self.bearer(ana.token), "POST", "/v1/admin/tokens", 403),
                (Self.bearer(ana.token) + [("Host", "evil.example")], "PUT", "/v1/profiles/ana/preferences/k", 421),
                (Self.bearer(ana.token) + [("Origin", "https://evil.example")], "PUT", "/v1/profiles/ana/preferences/k", 403),
            ]
            for (index, refused) in cases.enumerated() {
                for expectContinue in [true, false] {
                    let connection = try app.connection()
                    var head = "\(refused.method) \(refused.path) HTTP/1.1\r\n"
                    if !refused.headers.contains(where: { $0.0 == "Host" }) { head += "Host: 127.0.0.1:\(app.port)\r\n" }
                    for (name, value) in refused.headers { head += "\(name): \(value)\r\n" }
                    head += "Content-Type: application/json\r\nContent-Length: 1000000\r\n"
                    head += expectContinue ? "Expect: 100-continue\r\n\r\n" : "\r\n"
                    // Not a byte of the announced megabyte follows: the answer must come anyway.
                    try await connection.send(raw: head)
                    let answer = try await connection.readResponse()
                    #expect(answer.status == refused.status, "case \(index), Expect: \(expectContinue): \(answer.status)")
                    #expect(answer.header("Content-Type") == "application/problem+json")
                }
            }
        }
    }

    @Test("2: each route's body limit fits it: a counter body over 4 KiB is 413 at its Content-Length; a preference takes 60 KB", .overSockets("413 at the Content-Length, before the upload, on a connection"))
    func perRouteLimits() async throws {
        try await withApp { app in
            let connection = try app.connection()
            try await connection.send(raw: "PUT /v1/profiles/ana/counter HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                      + "Content-Length: 5000\r\nExpect: 100-continue\r\n\r\n")
            let early = try await connection.readResponse()
            #expect(early.status == 413)
            #expect(try early.problemType() == problem("payload-too-large"))
            let large = #"{"value":""# + String(repeating: "x", count: 60_000) + #""}"#
            #expect(try await app.request("PUT", "/v1/profiles/ana/preferences/big", json: large).status == 201)
        }
    }

    // MARK: 4. Revocation reaches event streams

    @Test("4: revoking a token ends the streams it opened with a revoked event, and its stream tokens stop working", .overSockets("event streams over TCP end with their token"))
    func revocationEndsStreams() async throws {
        try await withApp { app in
            let admin = try await Self.makeToken(app, profile: nil)
            let ana = try await Self.makeToken(app, profile: "ana")
            let issued = try await app.request("POST", "/v1/profiles/ana/events/token", headers: Self.bearer(ana.token))
            let streamToken = try #require(try issued.json()["token"] as? String)
            #expect(streamToken.contains("_\(ana.id)_"), "the stream token names its issuer")

            let byBearer = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events", headers: Self.bearer(ana.token))
            let byStreamToken = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?access_token=\(streamToken)")
            let byAdmin = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events", headers: Self.bearer(admin.token))
            #expect([byBearer, byStreamToken, byAdmin].map(\.head.status) == [200, 200, 200])

            #expect(try await app.request("DELETE", "/v1/admin/tokens/\(ana.id)", headers: Self.bearer(admin.token)).status == 204)
            for stream in [byBearer, byStreamToken] {
                let seen = try await stream.messages { $0.event == "revoked" }
                let revoked = try #require(seen.last)
                #expect(revoked.id == nil, "a control event is not a position in the log")
                #expect(try revoked.json()["reason"] as? String == "the token this stream was opened with was revoked")
                #expect(try await stream.next() == nil, "and the stream ends")
            }
            let again = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?access_token=\(streamToken)")
            #expect(again.head.status == 401, "a revoked token's stream token opens nothing")

            // The admin's stream goes on.
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: Self.bearer(admin.token))
            let live = try await byAdmin.messages { $0.event == "counter" }
            #expect(live.allSatisfy { $0.event != "revoked" })
        }
    }

    @Test("4: a stream token of the open mode stops working once tokens exist", .overSockets("an event stream over TCP"))
    func openStreamTokenExpiresWithOpenMode() async throws {
        try await withApp { app in
            let issued = try await app.request("POST", "/v1/profiles/ana/events/token")
            let streamToken = try #require(try issued.json()["token"] as? String)
            #expect(streamToken.contains("_open_"))
            #expect(try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?access_token=\(streamToken)").head.status == 200)
            _ = try await Self.makeToken(app, profile: nil)
            #expect(try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?access_token=\(streamToken)").head.status == 401)
        }
    }

    @Test("4: streams opened in the open mode end within a second of the first token, made elsewhere (the command line)", .overSockets("event streams over TCP end with the open mode"))
    func openModeStreamsEndWithTheFirstToken() async throws {
        try await withApp { app in
            let issued = try await app.request("POST", "/v1/profiles/ana/events/token")
            let streamToken = try #require(try issued.json()["token"] as? String)
            let plain = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events")
            let byStreamToken = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?access_token=\(streamToken)")
            #expect([plain, byStreamToken].map(\.head.status) == [200, 200])
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment")
            for stream in [plain, byStreamToken] { _ = try await stream.messages { $0.event == "counter" } }

            // As `navprefs tokens create` does: a row in the database, nothing said to the server.
            let made = try #require(AccessToken.make(profile: nil, label: "cli", now: 1))
            try await app.app.tokens.createToken(made.record)
            let created = ContinuousClock.now
            for stream in [plain, byStreamToken] {
                let seen = try await stream.messages { $0.event == "revoked" }
                #expect(seen.allSatisfy { $0.event != "counter" }, "no event after the open mode ended")
                let revoked = try #require(seen.last)
                #expect(try revoked.json()["reason"] as? String
                        == "this stream was opened without a token, and the server needs one now (a token was created)")
                #expect(try await stream.next() == nil, "and the stream ends")
                let after = ContinuousClock.now - created
                #expect(after < .seconds(1), "ended \(after) after the token was made")
            }
            #expect(try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events").head.status == 401)
            let withToken = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events", headers: Self.bearer(made.token))
            #expect(withToken.head.status == 200)
            // A token's stream is not one of the open mode's: it stays when the next look finds tokens again.
            try await Task.sleep(for: Authenticator.openModeLook * 2)
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: Self.bearer(made.token))
            #expect(try await withToken.messages { $0.event == "counter" }.allSatisfy { $0.event != "revoked" })
        }
    }

    @Test("3: with --stream-secret-file, a stream token signed with the database's key alone is refused", .overSockets("an event stream over TCP"))
    func streamSecretOutsideTheDatabase() async throws {
        try await withApp({ $0.streamSecret = "a secret kept in a file of its own" }) { app in
            let ana = try await Self.makeToken(app, profile: "ana")
            let issued = try await app.request("POST", "/v1/profiles/ana/events/token", headers: Self.bearer(ana.token))
            let genuine = try #require(try issued.json()["token"] as? String)
            #expect(try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?access_token=\(genuine)").head.status == 200)
            // What someone who can read the database file can make.
            let stored = try await app.app.tokens.secret(named: Authenticator.streamKeyName, candidate: "unused")
            let expiry = Int64(Date().timeIntervalSince1970) + 600
            let forged = StreamToken.make(profile: try ProfileName("ana"), issuer: ana.id, expiry: expiry, key: stored)
            #expect(try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?access_token=\(forged)").head.status == 401)
        }
    }

    // MARK: 6. Stream limits per token and per forwarded client

    @Test("6: stream limits count per token, so clients behind one proxy do not share one budget", .overSockets("per-token stream limits, over TCP"))
    func streamLimitsPerToken() async throws {
        try await withApp({ $0.sseMaxSubscribersPerIP = 1 }) { app in
            let ana = try await Self.makeToken(app, profile: "ana")
            let bob = try await Self.makeToken(app, profile: "bob")
            let first = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events", headers: Self.bearer(ana.token))
            #expect(first.head.status == 200)
            let second = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events", headers: Self.bearer(ana.token))
            #expect(second.head.status == 429)
            let issued = try await app.request("POST", "/v1/profiles/ana/events/token", headers: Self.bearer(ana.token))
            let streamToken = try #require(try issued.json()["token"] as? String)
            let byStreamToken = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?access_token=\(streamToken)")
            #expect(byStreamToken.head.status == 429, "a stream token counts as the token that asked for it")
            let other = try await SSEClient.open(port: app.port, path: "/v1/profiles/bob/events", headers: Self.bearer(bob.token))
            #expect(other.head.status == 200, "same address, another token")
        }
    }

    @Test("6: behind a trusted proxy the limit counts X-Forwarded-For's client; from anyone else that header is ignored", .overSockets("per-address stream limits, over TCP"))
    func streamLimitsPerForwardedClient() async throws {
        try await withApp({ $0.sseMaxSubscribersPerIP = 1; $0.trustedProxies = ["127.0.0.1"] }) { app in
            let path = "/v1/profiles/ana/events"
            let one = try await SSEClient.open(port: app.port, path: path, headers: [("X-Forwarded-For", "203.0.113.1")])
            let two = try await SSEClient.open(port: app.port, path: path, headers: [("X-Forwarded-For", "198.51.100.7, 203.0.113.2")])
            let again = try await SSEClient.open(port: app.port, path: path, headers: [("X-Forwarded-For", "203.0.113.1")])
            #expect([one, two, again].map(\.head.status) == [200, 200, 429])
            // The proxy's own view from 127.0.0.2, which is not trusted: its header is not believed.
            let untrusted = try await SSEClient.open(port: app.port, path: path, headers: [("X-Forwarded-For", "203.0.113.3")], sourceAddress: "127.0.0.2")
            let untrustedAgain = try await SSEClient.open(port: app.port, path: path, headers: [("X-Forwarded-For", "203.0.113.4")], sourceAddress: "127.0.0.2")
            #expect([untrusted, untrustedAgain].map(\.head.status) == [200, 429])
            _ = (one, two, untrusted)
        }
    }

    // MARK: 7. HEAD on the event stream

    /// The head goes out unframed, so the connection closes after it (`Connection: close`):
    /// libmicrohttpd 0.9.75 can frame a stream's HEAD answer no other way that is correct (see
    /// MHDResponse.queueHeadOfStream). What broke before was the stray `0\r\n\r\n` after it.
    @Test("7: HEAD on the event stream answers headers only, registers nothing, and sends no stray byte", .overSockets("HEAD of a stream: no stray byte on the wire"))
    func headOfEvents() async throws {
        try await withApp { app in
            let connection = try app.connection()
            // A pipelined GET after the HEAD: before the fix its answer was read as "0\r\n\r\n".
            try await connection.send(raw: "HEAD /v1/profiles/ana/events HTTP/1.1\r\nHost: localhost\r\n\r\n"
                                      + "GET /v1/profiles/ana/counter HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let head = try await connection.readResponse(method: "HEAD")
            #expect(head.status == 200)
            #expect(head.header("Content-Type") == "text/event-stream")
            #expect(head.header("Connection") == "close")
            #expect(try connection.readUntilClosed() == [], "nothing follows the head but the close")
            #expect(app.app.api.subscriberCount == 0)
            #expect(try await app.request("GET", "/v1/profiles/ana/counter").status == 200)
        }
    }

    // MARK: 8. Smaller ones

    @Test("8: %00 in a preference key is 400 and writes nothing (it wrote the key before the NUL)")
    func nulInPath() async throws {
        try await withApp { app in
            let written = try await app.request("PUT", "/v1/profiles/ana/preferences/k%00x", json: #"{"value":1}"#)
            #expect(written.status == 400)
            #expect(written.header("Content-Type") == "application/problem+json")
            #expect(try await app.request("GET", "/v1/profiles/ana/preferences/k").status == 404)
        }
    }

    @Test("8: a CORS preflight and the answer after it carry each CORS header once (browsers refuse two)")
    func preflightHeadersOnce() async throws {
        try await withApp({ $0.corsOrigins = CORSPolicy(parsing: "https://app.example") }) { app in
            let preflight = try await app.request("OPTIONS", "/v1/profiles/ana/counter", headers: [
                ("Origin", "https://app.example"), ("Access-Control-Request-Method", "PUT"),
                ("Access-Control-Request-Headers", "content-type, authorization"),
            ])
            #expect(preflight.status == 204)
            for name in ["Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Vary"] {
                #expect(preflight.headers.filter { $0.0.caseInsensitiveCompare(name) == .orderedSame }.count == 1, "\(name): \(preflight.headers)")
            }
            #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Idempotency-Key") == true, "a page may send idempotent writes")
            let write = try await app.request("PUT", "/v1/profiles/ana/counter", headers: [("Origin", "https://app.example")], json: #"{"value":3}"#)
            #expect(write.status == 200)
            #expect(write.headers.filter { $0.0 == "Access-Control-Allow-Origin" }.map(\.1) == ["https://app.example"])
        }
    }

    @Test("8: the stream cookie is Secure when a trusted proxy says the client used TLS, and only then")
    func secureCookie() async throws {
        try await withApp({ $0.trustedProxies = ["127.0.0.1"] }) { app in
            let tls = try await app.request("POST", "/v1/profiles/ana/events/token", headers: [("X-Forwarded-Proto", "https")])
            #expect(tls.header("Set-Cookie")?.hasSuffix("; HttpOnly; SameSite=Strict; Secure") == true, "\(tls.header("Set-Cookie") ?? "-")")
            let plain = try await app.request("POST", "/v1/profiles/ana/events/token")
            #expect(plain.header("Set-Cookie")?.hasSuffix("; HttpOnly; SameSite=Strict") == true)
        }
        try await withApp { app in
            let spoofed = try await app.request("POST", "/v1/profiles/ana/events/token", headers: [("X-Forwarded-Proto", "https")])
            #expect(spoofed.header("Set-Cookie")?.contains("Secure") == false, "from a peer that is not a trusted proxy")
        }
    }

    @Test("8: a request with 100 query arguments is answered 414, once")
    func manyQueryArguments() async throws {
        try await withApp { app in
            let query = (0..<100).map { "a\($0)=1" }.joined(separator: "&")
            let answer = try await app.request("GET", "/v1/profiles/ana/counter?" + query)
            #expect(answer.status == 414)
            #expect(try answer.problemType() == problem("uri-too-long"))
            #expect(try await app.request("GET", "/v1/profiles/ana/counter").status == 200, "and the service goes on")
        }
    }
}
