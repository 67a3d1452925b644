import Foundation
import HTTPTestClient
import NavPrefsCore
import NavPrefsHTTPAPI
import NavPrefsStore
import NavPrefsApp
import Testing
import StoreTestSupport

// Navigation sessions over a real socket and a real SQLite file (semantics S-1, A-1, A-2), and
// the helpers the other Session*APITests suites share.

// MARK: Shared helpers

/// The collection of sessions of `profile`.
func sessionsPath(_ profile: String = "ana") -> String { "/v1/profiles/\(profile)/sessions" }

/// A session's path, with `rest` (`/push`, `/navigation-bar`, ...) appended.
func sessionPath(_ id: String, _ rest: String = "", profile: String = "ana") -> String {
    sessionsPath(profile) + "/" + id + rest
}

/// A valid session id (32 lowercase hex digits) that no session has.
let unknownSessionID = String(repeating: "0", count: 32)

/// A screen as a JSON text: its id and, if given, a title.
func screenJSON(_ id: String, title: String? = nil) -> String {
    guard let title else { return #"{"id":"\#(id)"}"# }
    return #"{"id":"\#(id)","navigationItem":{"title":"\#(title)"}}"#
}

/// A push body for screen `id`.
func pushBody(_ id: String, title: String? = nil) -> String { #"{"screen":\#(screenJSON(id, title: title))}"# }

/// A stack body listing `ids`.
func stackBody(_ ids: [String]) -> String { #"{"screens":[\#(ids.map { screenJSON($0) }.joined(separator: ","))]}"# }

extension TestApp {
    /// Creates a session of `profile` with `body`; requires 201 and answers the session id.
    func createSession(_ profile: String = "ana", body: String = #"{"root":{"id":"home"}}"#,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await request("POST", sessionsPath(profile), json: body)
        try #require(response.status == 201, "create: \(response.status) \(response.text)", sourceLocation: sourceLocation)
        return try #require(response.string(at: "/session"), sourceLocation: sourceLocation)
    }

    /// Creates a session whose stack is `ids` (root first), by a create and pushes.
    func createSession(stack ids: [String], profile: String = "ana",
                       sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let id = try await createSession(profile, body: #"{"root":\#(screenJSON(ids[0]))}"#, sourceLocation: sourceLocation)
        for screen in ids.dropFirst() {
            let pushed = try await request("POST", sessionPath(id, "/push", profile: profile), json: pushBody(screen))
            try #require(pushed.status == 200, "push \(screen): \(pushed.text)", sourceLocation: sourceLocation)
        }
        return id
    }

    /// The session as GET answers it; requires 200.
    func session(_ id: String, profile: String = "ana", sourceLocation: SourceLocation = #_sourceLocation) async throws -> TestResponse {
        let response = try await request("GET", sessionPath(id, profile: profile))
        try #require(response.status == 200, "GET session: \(response.status) \(response.text)", sourceLocation: sourceLocation)
        return response
    }

    /// The logged events of `profile` (type, and the JSON data), read from the store the service uses.
    func loggedEvents(_ profile: String = "ana") async throws -> [(type: String, data: [String: Any])] {
        try await app.store.events(of: try ProfileName(profile), after: 0, limit: 10_000).map { event in
            let data = try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any] ?? [:]
            return (event.type.rawValue, data)
        }
    }

    /// The newest event id the profile issued (the version its next write will exceed).
    func latestEventID(_ profile: String = "ana") async throws -> Int64 {
        try await app.store.eventLogBounds(of: try ProfileName(profile)).latest
    }
}

/// The value at a JSON Pointer (RFC 6901, without escapes) in a value parsed by JSONSerialization.
func jsonValue(_ value: Any?, at pointer: String) -> Any? {
    var current = value
    for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
        if let object = current as? [String: Any] {
            current = object[String(token)]
        } else if let array = current as? [Any], let index = Int(token), array.indices.contains(index) {
            current = array[index]
        } else {
            return nil
        }
    }
    return current
}

extension TestResponse {
    /// The body's value at `pointer` (`nil` when absent or when the body is not JSON).
    func value(at pointer: String) -> Any? { jsonValue(try? JSONSerialization.jsonObject(with: Data(body)), at: pointer) }
    func string(at pointer: String) -> String? { value(at: pointer) as? String }
    func integer(at pointer: String) -> Int? { (value(at: pointer) as? NSNumber)?.intValue }
    func bool(at pointer: String) -> Bool? { value(at: pointer) as? Bool }
    /// Whether the member is there and `null` (absent is not null).
    func isNull(at pointer: String) -> Bool { value(at: pointer) is NSNull }
    func has(_ pointer: String) -> Bool { value(at: pointer) != nil }
    /// An array of strings, or the `id` of each object of an array (screens).
    func ids(at pointer: String) -> [String]? {
        guard let array = value(at: pointer) as? [Any] else { return nil }
        return array.compactMap { element in (element as? String) ?? ((element as? [String: Any])?["id"] as? String) }
    }
    /// The `title` of each object of an array (bar button items).
    func titles(at pointer: String) -> [String]? {
        (value(at: pointer) as? [Any])?.compactMap { ($0 as? [String: Any])?["title"] as? String }
    }
}

/// Checks that `response` is the problem `slug` as RFC 9457 application/problem+json with its
/// status, and, when given, the JSON Pointer to the offending member.
func expectProblem(_ response: TestResponse, _ status: Int, _ slug: String, pointer: String? = nil,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == status, "\(response.status) \(response.text)", sourceLocation: sourceLocation)
    #expect((try? response.problemType()) == problem(slug), "\(response.text)", sourceLocation: sourceLocation)
    if let pointer {
        #expect(response.string(at: "/pointer") == pointer, "pointer of \(response.text)", sourceLocation: sourceLocation)
    }
}

/// Whether `text` is a session id: 32 lowercase hexadecimal digits.
func isSessionID(_ text: String) -> Bool {
    text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
}

// MARK: Lifecycle

@Suite("Navigation sessions API: create, list, read, delete, If-Match, limits, isolation")
struct SessionAPITests {
    let collection = sessionsPath()

    @Test("S-1: POST creates a session holding exactly its root: 201, Location, ETag = version, a 32-hex id; GET reads the same")
    func create() async throws {
        try await withApp { app in
            let created = try await app.request("POST", collection, json: #"{"root":\#(screenJSON("home", title: "Home"))}"#)
            #expect(created.status == 201)
            #expect(created.header("Content-Type") == "application/json")
            let id = try #require(created.string(at: "/session"))
            #expect(isSessionID(id), "\(id)")
            #expect(created.header("Location") == collection + "/" + id)
            #expect(created.header("ETag") == "\"1\"")
            #expect(created.string(at: "/profile") == "ana")
            #expect(created.integer(at: "/version") == 1)
            #expect(created.integer(at: "/eventId") == 1)
            #expect(created.integer(at: "/stack/count") == 1)
            #expect(created.ids(at: "/stack/screens") == ["home"])
            #expect(created.string(at: "/stack/root") == "home")
            #expect(created.string(at: "/stack/top") == "home")
            #expect(created.isNull(at: "/stack/back"))
            #expect(created.string(at: "/stack/screens/0/navigationItem/title") == "Home")
            #expect(created.string(at: "/visible") == "home")
            #expect(created.isNull(at: "/presented"))
            #expect(created.string(at: "/appearance/barStyle") == "default")
            #expect(created.bool(at: "/options/isCustomizable") == false)

            let read = try await app.request("GET", collection + "/" + id)
            #expect(read.status == 200)
            #expect(read.header("ETag") == "\"1\"")
            #expect(read.text == created.text.replacingOccurrences(of: #""eventId":1,"#, with: ""),
                    "GET answers the session the create answered, without the event id")
            #expect(try await app.request("GET", collection + "/" + id, headers: [("If-None-Match", "\"1\"")]).status == 304)
            #expect(try await app.request("GET", collection + "/" + id, headers: [("If-None-Match", "\"2\"")]).status == 200)

            let events = try await app.loggedEvents()
            #expect(events.map(\.type) == ["navigation"])
            #expect(events.first?.data["action"] as? String == "create")
            #expect(events.first?.data["session"] as? String == id)
        }
    }

    @Test("a session can start styled: appearance and options are taken from the create body")
    func createWithAppearanceAndOptions() async throws {
        try await withApp { app in
            let created = try await app.request("POST", collection, json: """
                {"root":{"id":"home"},"appearance":{"barTintColor":"#112233","prefersLargeTitles":true},"options":{"seedCustomBackItem":true}}
                """)
            #expect(created.status == 201)
            #expect(created.string(at: "/appearance/barTintColor") == "#112233")
            #expect(created.bool(at: "/appearance/prefersLargeTitles") == true)
            #expect(created.bool(at: "/options/seedCustomBackItem") == true)
            let id = try #require(created.string(at: "/session"))
            let pushed = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("detail"))
            #expect(pushed.string(at: "/stack/screens/1/navigationItem/leftBarButtonItems/0/image") == "nearby",
                    "B-11: the session's option applies to its pushes")
        }
    }

    @Test("two creates give different ids; the list shows them in creation order with version, depth, root and top")
    func list() async throws {
        try await withApp { app in
            let first = try await app.createSession()
            let second = try await app.createSession(body: #"{"root":{"id":"start"}}"#)
            #expect(first != second)
            _ = try await app.request("POST", sessionPath(second, "/push"), json: pushBody("detail"))
            let list = try await app.request("GET", collection)
            #expect(list.status == 200)
            #expect(list.header("Content-Type") == "application/json")
            #expect(list.text.replacing(/,"label":null,"createdAt":"[^"]*","updatedAt":"[^"]*"/, with: "") == """
                {"profile":"ana","sessions":[\
                {"id":"\(first)","version":1,"depth":1,"root":"home","top":"home"},\
                {"id":"\(second)","version":3,"depth":2,"root":"start","top":"detail"}]}

                """)
        }
    }

    @Test("the list is oldest first, also for sessions created within one millisecond (commit order = version order)", .overSockets("concurrent clients on their own connections and threads"))
    func listOrderOfQuickCreates() async throws {
        try await withApp { app in
            let port = app.port
            let path = collection
            // Four clients creating at once: group commit puts several creates in one transaction,
            // so many share a millisecond. Nothing changes them afterwards, so each session's
            // version is its create's event id: the order in which they came into being.
            let created = try await TestHTTP.onThreads(4) { thread in
                let connection = try TestConnection(port: port)
                return try (0..<10).map { index -> String in
                    let response = try connection.request("POST", path, json: #"{"root":{"id":"r\#(thread)-\#(index)"}}"#)
                    return response.string(at: "/session") ?? "status \(response.status)"
                }
            }.flatMap { $0 }
            let list = try await app.request("GET", collection)
            let listed = try #require(list.ids(at: "/sessions"))
            #expect(Set(listed) == Set(created))
            #expect(listed.count == 40)
            let versions = (0..<listed.count).compactMap { list.integer(at: "/sessions/\($0)/version") }
            #expect(versions.count == 40)
            #expect(versions == versions.sorted(), "listed in creation order")
        }
    }

    @Test("an unknown or malformed session id is 404 session-not-found; a never-written profile has no sessions")
    func notFound() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            for bad in [unknownSessionID, "xyz", id.uppercased(), String(id.dropLast()), id + "0", "%20"] {
                expectProblem(try await app.request("GET", sessionPath(bad)), 404, "session-not-found")
                expectProblem(try await app.request("POST", sessionPath(bad, "/pop")), 404, "session-not-found")
                expectProblem(try await app.request("DELETE", sessionPath(bad)), 404, "session-not-found")
                expectProblem(try await app.request("GET", sessionPath(bad, "/navigation-bar")), 404, "session-not-found")
            }
            let nobody = try await app.request("GET", sessionsPath("nobody"))
            #expect(nobody.status == 200)
            #expect(nobody.ids(at: "/sessions") == [], "a fresh profile has no sessions")
            expectProblem(try await app.request("GET", sessionPath(id, profile: "nobody")), 404, "session-not-found")
            expectProblem(try await app.request("GET", sessionsPath("-bad")), 400, "invalid-profile-name")
            #expect(try await app.session(id).integer(at: "/version") == 1, "the session is untouched by all this")
        }
    }

    @Test("DELETE answers the event it logged (also the last version); the session is then 404 everywhere, and gone from the list")
    func delete() async throws {
        try await withApp { app in
            let kept = try await app.createSession()
            let id = try await app.createSession(body: #"{"root":{"id":"other"}}"#)
            let deleted = try await app.request("DELETE", sessionPath(id))
            #expect(deleted.status == 200)
            #expect(deleted.text == #"{"profile":"ana","session":"\#(id)","deleted":true,"version":3,"eventId":3}"# + "\n")
            expectProblem(try await app.request("GET", sessionPath(id)), 404, "session-not-found")
            expectProblem(try await app.request("DELETE", sessionPath(id)), 404, "session-not-found")
            expectProblem(try await app.request("POST", sessionPath(id, "/push"), json: pushBody("x")), 404, "session-not-found")
            #expect(try await app.request("GET", collection).ids(at: "/sessions") == [kept])
            let events = try await app.loggedEvents()
            #expect(events.map { $0.data["action"] as? String } == ["create", "create", "delete"])
            #expect(events.last?.data["session"] as? String == id)
            #expect(events.last?.data["version"] as? Int == 3)
        }
    }

    @Test("A-1: two clients writing with the same ETag at once: exactly one wins, the other gets 412 with the current ETag", .overSockets("concurrent clients on their own connections and threads"))
    func ifMatchRace() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let etag = try #require(try await app.session(id).header("ETag"))
            let port = app.port
            let path = sessionPath(id, "/push")
            let responses = try await TestHTTP.onThreads(2) { index in
                try TestHTTP.request(port: port, "POST", path, headers: [("If-Match", etag)], json: pushBody("s\(index)"))
            }
            #expect(responses.map(\.status).sorted() == [200, 412], "\(responses.map(\.text))")
            let winner = try #require(responses.first { $0.status == 200 })
            let loser = try #require(responses.first { $0.status == 412 })
            expectProblem(loser, 412, "precondition-failed")
            #expect(loser.header("ETag") == winner.header("ETag"))
            #expect(loser.integer(at: "/currentVersion") == winner.integer(at: "/version"))
            let read = try await app.session(id)
            #expect(read.header("ETag") == winner.header("ETag"))
            #expect(read.ids(at: "/stack/screens") == ["home", try #require(winner.string(at: "/to"))], "the loser's push is not applied")
        }
    }

    @Test("A-1: with the same ETag one after the other, the first write wins and the second is 412; a stale DELETE is 412")
    func ifMatchSequential() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let first = try await app.request("POST", sessionPath(id, "/push"), headers: [("If-Match", "\"1\"")], json: pushBody("a"))
            #expect(first.status == 200)
            #expect(first.header("ETag") == "\"2\"")
            let second = try await app.request("POST", sessionPath(id, "/push"), headers: [("If-Match", "\"1\"")], json: pushBody("b"))
            expectProblem(second, 412, "precondition-failed")
            #expect(second.header("ETag") == "\"2\"")
            expectProblem(try await app.request("POST", sessionPath(id, "/pop"), headers: [("If-Match", "W/\"2\"")]), 412,
                          "precondition-failed")  // weak tags never match If-Match
            expectProblem(try await app.request("DELETE", sessionPath(id), headers: [("If-Match", "\"1\"")]), 412, "precondition-failed")
            #expect(try await app.session(id).ids(at: "/stack/screens") == ["home", "a"])
            #expect(try await app.request("POST", sessionPath(id, "/push"), headers: [("If-Match", "\"1\", \"2\"")],
                                          json: pushBody("b")).status == 200, "a list admits any of its versions")
            #expect(try await app.request("DELETE", sessionPath(id), headers: [("If-Match", "\"3\"")]).status == 200)
            expectProblem(try await app.request("GET", sessionPath(id)), 404, "session-not-found")
            #expect(try await app.latestEventID() == 4, "refused writes logged nothing")
        }
    }

    @Test("A-1: If-Match: * admits an existing session and fails with 412 on one that does not exist")
    func ifMatchStar() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            #expect(try await app.request("POST", sessionPath(id, "/push"), headers: [("If-Match", "*")], json: pushBody("a")).status == 200)
            let missing = try await app.request("POST", sessionPath(unknownSessionID, "/push"), headers: [("If-Match", "*")],
                                                json: pushBody("a"))
            expectProblem(missing, 412, "precondition-failed")
            #expect(missing.header("ETag") == nil)
            expectProblem(try await app.request("DELETE", sessionPath(unknownSessionID), headers: [("If-Match", "*")]), 412,
                          "precondition-failed")
            expectProblem(try await app.request("POST", sessionPath(unknownSessionID, "/pop"), headers: [("If-Match", "*")]), 412,
                          "precondition-failed")
        }
    }

    @Test("the 101st session of a profile is 409 too-many-sessions (default limit 100) and logs nothing; other profiles are unaffected", .overSockets("concurrent clients on their own connections and threads"))
    func sessionLimit() async throws {
        try await withApp { app in
            let port = app.port
            let path = collection
            let statuses = try await TestHTTP.onThreads(1) { _ in
                let connection = try TestConnection(port: port)
                return try (0...100).map { index in
                    try connection.request("POST", path, json: #"{"root":{"id":"r\#(index)"}}"#)
                }
            }[0]
            #expect(statuses.prefix(100).allSatisfy { $0.status == 201 })
            let refused = try #require(statuses.last)
            expectProblem(refused, 409, "too-many-sessions")
            #expect(refused.integer(at: "/limit") == 100)
            #expect(try await app.latestEventID() == 100, "the refused create took no version and logged nothing")
            #expect(try await app.request("GET", collection).ids(at: "/sessions")?.count == 100)
            _ = try await app.createSession("bob")
            let first = try #require(statuses.first?.string(at: "/session"))
            #expect(try await app.request("DELETE", sessionPath(first)).status == 200)
            _ = try await app.createSession()
            expectProblem(try await app.request("POST", collection, json: #"{"root":{"id":"more"}}"#), 409, "too-many-sessions")
        }
    }

    @Test("a session of one profile does not exist under another profile's path")
    func isolation() async throws {
        try await withApp { app in
            let anas = try await app.createSession("ana")
            let bobs = try await app.createSession("bob")
            expectProblem(try await app.request("GET", sessionPath(anas, profile: "bob")), 404, "session-not-found")
            expectProblem(try await app.request("POST", sessionPath(anas, "/push", profile: "bob"), json: pushBody("x")), 404,
                          "session-not-found")
            expectProblem(try await app.request("PUT", sessionPath(anas, "/screens/home/navigation-item", profile: "bob"),
                                                json: #"{"title":"x"}"#), 404, "session-not-found")
            expectProblem(try await app.request("GET", sessionPath(anas, "/gestures", profile: "bob")), 404, "session-not-found")
            expectProblem(try await app.request("DELETE", sessionPath(anas, profile: "bob")), 404, "session-not-found")
            #expect(try await app.request("GET", sessionsPath("bob")).ids(at: "/sessions") == [bobs])
            let anasSession = try await app.session(anas)
            #expect(anasSession.ids(at: "/stack/screens") == ["home"])
            #expect(anasSession.integer(at: "/version") == 1)
            #expect(try await app.loggedEvents("bob").count == 1, "nothing logged in bob's profile by the refused calls")
        }
    }

    @Test("a profile read before its first session, then created by it, reads the same fresh counter and preferences")
    func sessionCreatesProfile() async throws {
        try await withApp { app in
            // Reading first makes the service remember what it read (the counter cache).
            #expect(try await app.request("GET", "/v1/profiles/newcomer/counter").integer(at: "/version") == 0)
            #expect(try await app.request("GET", "/v1/profiles/newcomer/preferences").integer(at: "/version") == 0)
            _ = try await app.createSession("newcomer")
            let counter = try await app.request("GET", "/v1/profiles/newcomer/counter")
            #expect(counter.status == 200, "\(counter.text)")
            #expect(counter.integer(at: "/value") == 0)
            let preferences = try await app.request("GET", "/v1/profiles/newcomer/preferences")
            #expect(preferences.status == 200, "\(preferences.text)")
        }
    }

    @Test("session writes take versions from the profile's event sequence but leave the preferences' version alone")
    func versionsInterleave() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let counted = try await app.request("POST", "/v1/profiles/ana/counter/increment")
            #expect(counted.integer(at: "/version") == 2)
            let pushed = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("a"))
            #expect(pushed.integer(at: "/version") == 3)
            let preferences = try await app.request("GET", "/v1/profiles/ana/preferences")
            #expect(preferences.header("ETag") == "\"2\"", "only the counter write changed the preferences")
            #expect(try await app.request("GET", "/v1/profiles/ana/counter").header("ETag") == "\"2\"")
            _ = try await app.request("POST", sessionPath(id, "/pop"))
            #expect(try await app.request("GET", "/v1/profiles/ana/preferences").header("ETag") == "\"2\"")
            #expect(try await app.loggedEvents().map(\.type) == ["navigation", "counter", "navigation", "navigation"])
        }
    }
}
