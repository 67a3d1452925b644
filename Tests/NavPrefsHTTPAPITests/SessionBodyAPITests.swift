import Foundation
import HTTPTestClient
import NavPrefsHTTPAPI
import NavPrefsApp
import Testing
import StoreTestSupport

/// Request bodies of the session routes: strict decoding (unknown members, wrong types, values
/// beyond the limits) answered as problem+json with a JSON Pointer, and nothing changed.
@Suite("Navigation sessions API: bodies, limits, content types")
struct SessionBodyAPITests {
    /// One refused request: where it goes (under the session), its body, and the answer expected.
    struct Refusal: Sendable, CustomTestStringConvertible {
        let method: String
        let path: String
        let body: String
        let status: Int
        let type: String
        let pointer: String?

        init(_ method: String, _ path: String, _ body: String, _ status: Int, _ type: String, _ pointer: String?) {
            self.method = method
            self.path = path
            self.body = body
            self.status = status
            self.type = type
            self.pointer = pointer
        }

        var testDescription: String { "\(method) \(path) \(body.prefix(60)) -> \(status) \(type) \(pointer ?? "")" }
    }

    static let longTitle = String(repeating: "x", count: 257)
    /// 129 characters of 2 scalars each: 258 scalars, though only 129 characters.
    static let longScalars = String(repeating: "e\\u0301", count: 129)
    static let seventeenItems = "[" + (1...17).map { #"{"title":"i\#($0)"}"# }.joined(separator: ",") + "]"
    static let sixtyFiveScreens = stackBody((0..<65).map { "s\($0)" })
    static let pan = #""start":{"x":5,"y":300},"translation":{"x":200,"y":0},"velocity":{"x":800,"y":0}"#

    static let refusals: [Refusal] = [
        // Wrong shapes: 400 invalid-body, with the place.
        Refusal("POST", "/push", #"{"screen":{"id":"b","tilte":"x"}}"#, 400, "invalid-body", "/screen/tilte"),
        Refusal("POST", "/push", #"{"screen":{"id":5}}"#, 400, "invalid-body", "/screen/id"),
        Refusal("POST", "/push", #"{"screen":"b"}"#, 400, "invalid-body", "/screen"),
        Refusal("POST", "/push", #"{"screen":{"id":"b","navigationItem":{"title":true}}}"#, 400, "invalid-body", "/screen/navigationItem/title"),
        Refusal("POST", "/push", #"{"screen":{"id":"b"},"animated":"yes"}"#, 400, "invalid-body", "/animated"),
        Refusal("POST", "/push", "{}", 400, "invalid-body", "/screen"),
        Refusal("POST", "/push", #"{"screen":null}"#, 400, "invalid-body", "/screen"),
        Refusal("POST", "/push", "[]", 400, "invalid-body", nil),
        Refusal("POST", "/pop", #"{"animated":1}"#, 400, "invalid-body", "/animated"),
        Refusal("PUT", "/screens/home/navigation-item", #"{"tilte":"Home"}"#, 400, "invalid-body", "/tilte"),
        Refusal("PUT", "/screens/home/navigation-item", #"{"title":5}"#, 400, "invalid-body", "/title"),
        Refusal("PUT", "/screens/home/navigation-item", #"{"rightBarButtonItems":[{"title":"a","colour":"red"}]}"#, 400,
                "invalid-body", "/rightBarButtonItems/0/colour"),
        Refusal("PUT", "/stack", #"{"screens":{"id":"a"}}"#, 400, "invalid-body", "/screens"),
        Refusal("PUT", "/stack", #"{"screens":[{"id":"a"},{"id":"b","name":"b"}]}"#, 400, "invalid-body", "/screens/1/name"),
        Refusal("PUT", "/stack", #"{"screens":[{"id":"a"},{"name":"b"}]}"#, 400, "invalid-body", "/screens/1/id"),
        Refusal("PUT", "/appearance", #"{"barTintColor":7}"#, 400, "invalid-body", "/barTintColor"),
        Refusal("PUT", "/options", #"{"isCustomisable":true}"#, 400, "invalid-body", "/isCustomisable"),
        Refusal("POST", "/gestures/evaluate", #"{"start":{"x":5,"y":300},"translation":{"x":200,"y":0},"width":390}"#, 400,
                "invalid-body", "/velocity"),
        Refusal("POST", "/gestures/perform", "{\(pan),\"width\":\"390\"}", 400, "invalid-body", "/width"),
        // Values beyond the limits or the rules: 422 invalid-navigation, with the place.
        Refusal("POST", "/push", #"{"screen":{"id":"b","navigationItem":{"title":"\#(longTitle)"}}}"#, 422, "invalid-navigation",
                "/screen/navigationItem/title"),
        Refusal("POST", "/push", #"{"screen":{"id":"-b"}}"#, 422, "invalid-navigation", "/screen/id"),
        Refusal("PUT", "/screens/home/navigation-item", #"{"title":"\#(longTitle)"}"#, 422, "invalid-navigation", "/title"),
        Refusal("PUT", "/screens/home/navigation-item", #"{"backButtonTitle":"\#(longScalars)"}"#, 422, "invalid-navigation",
                "/backButtonTitle"),
        Refusal("PUT", "/screens/home/navigation-item", #"{"rightBarButtonItems":\#(seventeenItems)}"#, 422, "invalid-navigation",
                "/rightBarButtonItems"),
        Refusal("PUT", "/screens/home/navigation-item", #"{"leftBarButtonItems":\#(seventeenItems)}"#, 422, "invalid-navigation",
                "/leftBarButtonItems"),
        Refusal("PUT", "/screens/home/navigation-item", #"{"rightBarButtonItem":{"title":"a"},"rightBarButtonItems":[]}"#, 422,
                "invalid-navigation", "/rightBarButtonItem"),
        Refusal("PUT", "/stack", sixtyFiveScreens, 422, "invalid-navigation", "/screens"),
        Refusal("PUT", "/appearance", ##"{"barTintColor":"#12345"}"##, 422, "invalid-navigation", "/barTintColor"),
        Refusal("PUT", "/options", #"{"seedFullScreenPop":true,"isCustomizable":true}"#, 422, "invalid-navigation", "/seedFullScreenPop"),
        Refusal("POST", "/gestures/evaluate", "{\(pan),\"width\":0}", 422, "invalid-navigation", "/width"),
        Refusal("POST", "/gestures/perform",
                #"{"start":{"x":500,"y":300},"translation":{"x":200,"y":0},"velocity":{"x":800,"y":0},"width":390}"#, 422,
                "invalid-navigation", "/start/x"),
        Refusal("PUT", "/screens/home", #"{"id":"other"}"#, 422, "invalid-navigation", "/id"),
        // Not JSON, or not declared as JSON.
        Refusal("POST", "/push", #"{"screen":"#, 400, "malformed-json", nil),
        Refusal("PUT", "/screens/home/navigation-item", #"{"title":"#, 400, "malformed-json", nil),
        Refusal("POST", "/gestures/evaluate", "", 400, "invalid-body", nil),
    ]

    @Test("strict decoding: wrong shapes are 400 invalid-body, refused values 422 invalid-navigation, each with a pointer; nothing changes",
          arguments: refusals)
    func refusedBodies(_ refusal: Refusal) async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let before = try await app.session(id)
            let response = try await app.request(refusal.method, sessionPath(id, refusal.path), json: refusal.body)
            expectProblem(response, refusal.status, refusal.type, pointer: refusal.pointer)
            #expect(try await app.session(id).text == before.text)
            #expect(try await app.latestEventID() == 1)
        }
    }

    @Test("a member the operation does not take is 400 invalid-body naming it with a pointer, at the top level too", arguments: [
        ("POST", "/push", #"{"screen":{"id":"b"},"extra":1}"#),
        ("POST", "/pop", #"{"extra":1}"#),
        ("POST", "/pop-to", #"{"screenId":"home","extra":1}"#),
        ("PUT", "/stack", #"{"screens":[{"id":"a"}],"extra":1}"#),
        ("POST", "/present", #"{"screen":{"id":"m"},"extra":1}"#),
    ])
    func unknownTopLevelMember(method: String, path: String, body: String) async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let response = try await app.request(method, sessionPath(id, path), json: body)
            expectProblem(response, 400, "invalid-body")
            #expect(response.string(at: "/detail")?.contains("extra") == true)
            #expect(response.string(at: "/pointer") == "/extra")
            #expect(try await app.session(id).integer(at: "/version") == 1)
        }
    }

    @Test("an unknown member of the create body is refused with a pointer too", arguments: [
        (#"{"root":{"id":"home","colour":"red"}}"#, 400, "invalid-body", "/root/colour"),
        (#"{}"#, 400, "invalid-body", "/root"),
        (#"{"root":{"id":"home"},"appearance":{"barStyle":"purple"}}"#, 422, "invalid-navigation", "/appearance/barStyle"),
        (#"{"root":{"id":"home"},"options":{"isCustomizable":"yes"}}"#, 400, "invalid-body", "/options/isCustomizable"),
        (#"{"root":{"id":"h","navigationItem":{"title":"\#(longTitle)"}}}"#, 422, "invalid-navigation", "/root/navigationItem/title"),
    ])
    func refusedCreates(body: String, status: Int, type: String, pointer: String) async throws {
        try await withApp { app in
            expectProblem(try await app.request("POST", sessionsPath(), json: body), status, type, pointer: pointer)
            #expect(try await app.request("GET", sessionsPath()).ids(at: "/sessions") == [], "nothing was created")
        }
    }

    @Test("a body that is not declared as JSON is 415; a body-less write that needs one is 400")
    func contentTypes() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            for (method, path) in [("POST", "/push"), ("PUT", "/screens/home/navigation-item"), ("PUT", "/stack"), ("POST", "/pop"),
                                   ("POST", "/gestures/evaluate")] {
                let response = try await app.request(method, sessionPath(id, path), headers: [("Content-Type", "text/plain")],
                                                     body: pushBody("b"))
                expectProblem(response, 415, "unsupported-media-type")
                let latin = try await app.request(method, sessionPath(id, path), headers: [("Content-Type", "application/json; charset=latin1")],
                                                  body: pushBody("b"))
                expectProblem(latin, 415, "unsupported-media-type")
            }
            expectProblem(try await app.request("POST", sessionsPath(), headers: [("Content-Type", "text/plain")], body: "{}"), 415,
                          "unsupported-media-type")
            expectProblem(try await app.request("POST", sessionPath(id, "/push")), 400, "invalid-body")
            expectProblem(try await app.request("PUT", sessionPath(id, "/appearance")), 400, "invalid-body")
            expectProblem(try await app.request("POST", sessionsPath()), 400, "invalid-body")
            let vendor = try await app.request("POST", sessionPath(id, "/push"), headers: [("Content-Type", "application/vnd.navprefs+json")],
                                               body: pushBody("b"))
            #expect(vendor.status == 200, "any +json type is JSON")
            #expect(try await app.session(id).integer(at: "/version") == 2)
        }
    }

    @Test("limit: a stack holds 64 screens; a push beyond is 409 stack-full with the limit, a 65-screen PUT 422")
    func depthLimit() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let full = try await app.request("PUT", sessionPath(id, "/stack"), json: stackBody((0..<64).map { "s\($0)" }))
            #expect(full.status == 200)
            #expect(full.integer(at: "/stack/count") == 64)
            let refused = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("one-more"))
            expectProblem(refused, 409, "stack-full")
            #expect(refused.integer(at: "/limit") == 64)
            expectProblem(try await app.request("PUT", sessionPath(id, "/stack"), json: stackBody((0..<65).map { "t\($0)" })), 422,
                          "invalid-navigation", pointer: "/screens")
            let read = try await app.session(id)
            #expect(read.integer(at: "/stack/count") == 64)
            #expect(read.integer(at: "/version") == 2)
            _ = try await app.request("POST", sessionPath(id, "/pop"))
            #expect(try await app.request("POST", sessionPath(id, "/push"), json: pushBody("one-more")).status == 200)
        }
    }

    @Test("limit: texts count Unicode scalars: 256 pass, 257 do not")
    func textLimit() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let fits = String(repeating: "é", count: 256)
            let ok = try await app.request("PUT", sessionPath(id, "/screens/home/navigation-item"), json: #"{"title":"\#(fits)"}"#)
            #expect(ok.status == 200)
            #expect(ok.string(at: "/screen/navigationItem/title") == fits)
            let sixteen = "[" + (1...16).map { #"{"title":"i\#($0)"}"# }.joined(separator: ",") + "]"
            #expect(try await app.request("PUT", sessionPath(id, "/screens/home/navigation-item"),
                                          json: #"{"rightBarButtonItems":\#(sixteen)}"#).status == 200)
            expectProblem(try await app.request("PUT", sessionPath(id, "/screens/home/navigation-item"),
                                                json: #"{"title":"\#(fits)x"}"#), 422, "invalid-navigation", pointer: "/title")
        }
    }
}
