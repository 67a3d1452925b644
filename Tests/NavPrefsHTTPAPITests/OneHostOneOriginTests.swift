import Foundation
import HTTPTestClient
import NavPrefsApp
import NavPrefsHTTPAPI
import Testing

/// Issue 21, items 4 and 6: what a request may carry once, and what a write may not carry at all.
/// Before: two `Host` fields (loopback first) and `[::1].evil.example` were served 200, two
/// `Origin` fields passed on the first, and `increment?by=1000` added 1.
@Suite("Requests: exactly one Host, at most one Origin, no query arguments on writes")
struct OneHostOneOriginTests {
    @Test("two Host fields, loopback first, are 400 invalid-host and change nothing; also with --allowed-hosts", .overSockets("two Host lines as libmicrohttpd hands them on"))
    func twoHosts() async throws {
        for configure: (inout Configuration) -> Void in [{ _ in }, { $0.allowedHosts = ["prefs.example"] }] {
            try await withApp(configure) { app in
                let answer = try await app.request("POST", "/v1/profiles/ana/counter/increment",
                                                   headers: [("Host", "127.0.0.1:\(app.port)"), ("Host", "evil.example")])
                #expect(answer.status == 400)
                #expect(try answer.problemType() == problem("invalid-host"))
                #expect(try await app.request("GET", "/v1/profiles/ana/counter").int("value") == 0)
            }
        }
    }

    @Test("a Host that is no host[:port] is 400 invalid-host", arguments: ["[::1].evil.example", "127.0.0.1 evil", "[::1", "a:b:c"])
    func malformedHost(_ host: String) async throws {
        try await withApp { app in
            let answer = try await app.request("GET", "/v1/profiles/ana/counter", headers: [("Host", host)])
            #expect(answer.status == 400, "\(host)")
            #expect(try answer.problemType() == problem("invalid-host"), "\(host)")
        }
    }

    @Test("two Origin fields, the allowed one first, are 400 invalid-origin; one allowed Origin passes")
    func twoOrigins() async throws {
        try await withApp({ $0.corsOrigins = CORSPolicy(origins: ["https://app.example"]) }) { app in
            let two = try await app.request("POST", "/v1/profiles/ana/counter/increment",
                                            headers: [("Origin", "https://app.example"), ("Origin", "https://evil.example")])
            #expect(two.status == 400)
            #expect(try two.problemType() == problem("invalid-origin"))
            let one = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: [("Origin", "https://app.example")])
            #expect(one.status == 200)
            #expect(try await app.request("GET", "/v1/profiles/ana/counter").int("value") == 1)
        }
    }

    @Test("a write with a query argument is 400 invalid-query and changes nothing; a read ignores an unknown one")
    func queryOnWrites() async throws {
        try await withApp { app in
            let refused = try await app.request("POST", "/v1/profiles/ana/counter/increment?by=1000")
            #expect(refused.status == 400)
            #expect(try refused.problemType() == problem("invalid-query"))
            for (method, path) in [("PUT", "/v1/profiles/ana/preferences/k?x=1"), ("DELETE", "/v1/profiles/ana/preferences/k?x"),
                                   ("PATCH", "/v1/profiles/ana/preferences?dryRun=true")] {
                let answer = try await app.request(method, path, json: #"{"value":1}"#)
                #expect(answer.status == 400, "\(method) \(path)")
            }
            #expect(try await app.request("GET", "/v1/profiles/ana/counter?x=1").int("value") == 0)
        }
    }
}
