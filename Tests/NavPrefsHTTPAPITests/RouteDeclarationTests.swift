import Foundation
import HTTPTestClient
import NavPrefsApp
import MicroHTTPServer
@testable import NavPrefsHTTPAPI
import Testing
import StoreTestSupport

/// What a route declares (``Route``) against what it does: the gate and the authenticator
/// trust the declaration, so a route declared to read that writes, or a write behind a safe
/// method, would be a hole no other test names.
@Suite("A route's declaration says what it does")
struct RouteDeclarationTests {
    @Test("a write is never behind a safe method (GET, HEAD, OPTIONS): browsers and crawlers send those freely")
    func writesUseUnsafeMethods() async throws {
        try await withApp { app in
            let routes = app.app.api.router.routes
            #expect(routes.count == app.app.api.routeTable.reduce(0) { $0 + $1.methods.count })
            for route in routes where route.effect == .writes {
                #expect(!route.method.isSafe, "\(route.method) \(route.template) writes")
            }
            #expect(routes.contains { $0.effect == .writes } && routes.contains { $0.effect == .reads })
        }
    }

    @Test("every route declared to read answers and changes nothing: the profile's state, its event log and the tokens stay as they were")
    func readsChangeNothing() async throws {
        try await withApp { app in
            #expect(try await app.request("POST", "/v1/profiles/ana/counter/increment").status == 200)
            #expect(try await app.request("PUT", "/v1/profiles/ana/preferences/secret", json: #"{"value":"s"}"#).status == 201)
            let session = try await app.createSession(stack: ["home", "detail"])
            func snapshot() async throws -> [String] {
                try await ["/v1/profiles/ana/state", "/v1/profiles/ana/events?after=0", "/v1/admin/tokens"].asyncMap { path in
                    let response = try await app.request("GET", path, headers: [("Accept", "application/json")])
                    #expect(response.status == 200, "\(path): \(response.status)")
                    return response.text
                }
            }
            let before = try await snapshot()
            var read = 0
            for route in app.app.api.router.routes where route.effect == .reads {
                let path = AuthAPITests.path(route.template.replacingOccurrences(of: "{session}", with: session), profile: "ana")
                // The event stream as a page of JSON: the stream itself never ends.
                var headers = route.access == .profileStream ? [("Accept", "application/json")] : []
                var body: String?
                if route.method == .post {
                    headers.append(("Content-Type", "application/json"))
                    body = #"{"start":{"x":5,"y":300},"translation":{"x":200,"y":0},"velocity":{"x":900,"y":0},"width":390}"#
                }
                let response = try await app.request(route.method.rawValue, path, headers: headers, body: body)
                #expect((200..<300).contains(response.status), "\(route.method) \(route.template): \(response.status) \(response.text.prefix(200))")
                read += 1
            }
            #expect(read >= 20)
            #expect(try await snapshot() == before)
        }
    }
}

extension Array {
    /// `map` with an async transform, one element after the other.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
