import Foundation
import HTTPTestClient
import NavPrefsHTTPAPI
import NavPrefsApp
import Testing
import StoreTestSupport

/// Stack operations over a real socket (S-2..S-13) and the `navigation` events they log.
@Suite("Navigation sessions API: push, pop, pop to root, pop to, set stack, events")
struct SessionStackAPITests {
    @Test("S-2: push makes the screen the top; the answer has the transition, the new stack, a new version and its event id")
    func push() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let pushed = try await app.request("POST", sessionPath(id, "/push"),
                                               json: #"{"screen":\#(screenJSON("detail", title: "Detail")),"animated":false}"#)
            #expect(pushed.status == 200)
            #expect(pushed.header("ETag") == "\"2\"")
            #expect(pushed.string(at: "/session") == id)
            #expect(pushed.integer(at: "/version") == 2)
            #expect(pushed.integer(at: "/eventId") == 2)
            #expect(pushed.string(at: "/action") == "push")
            #expect(pushed.string(at: "/operation") == "push")
            #expect(pushed.bool(at: "/isTransition") == true)
            #expect(pushed.bool(at: "/changed") == true)
            #expect(pushed.bool(at: "/animated") == false)
            #expect(pushed.isNull(at: "/interaction"))
            #expect(pushed.string(at: "/from") == "home")
            #expect(pushed.string(at: "/to") == "detail")
            #expect(pushed.ids(at: "/removed") == [])
            #expect(!pushed.has("/popped"), "only a pop answers popped")
            #expect(pushed.string(at: "/events/0/name") == "willShow")
            #expect(pushed.string(at: "/events/1/name") == "didShow")
            #expect(pushed.string(at: "/events/1/screen") == "detail")
            #expect(pushed.ids(at: "/stack/screens") == ["home", "detail"])
            #expect(pushed.string(at: "/stack/back") == "home")
            #expect(pushed.string(at: "/stack/screens/1/navigationItem/title") == "Detail")
            let read = try await app.session(id)
            #expect(read.header("ETag") == "\"2\"")
            #expect(read.ids(at: "/stack/screens") == ["home", "detail"])
            #expect(read.string(at: "/visible") == "detail")
            #expect(try await app.request("POST", sessionPath(id, "/push"), json: pushBody("more")).bool(at: "/animated") == true,
                    "animated defaults to true")
        }
    }

    @Test("S-3: pushing a screen already on the stack (top or deeper) is 409 with UIKit's message; nothing changes")
    func pushDuplicate() async throws {
        try await withApp { app in
            let id = try await app.createSession(stack: ["home", "detail"])
            let before = try await app.session(id)
            for screen in ["detail", "home"] {
                let refused = try await app.request("POST", sessionPath(id, "/push"), json: pushBody(screen, title: "Other"))
                expectProblem(refused, 409, "screen-already-on-stack")
                #expect(refused.string(at: "/uikitMessage") == "Pushing the same view controller instance more than once is not supported")
                #expect(refused.string(at: "/rule") == "S-3")
                #expect(refused.header("ETag") == nil)
            }
            let after = try await app.session(id)
            #expect(after.text == before.text, "same version, same screens (the titles were not taken over)")
            #expect(try await app.latestEventID() == 2)
        }
    }

    @Test("S-4/S-5: pop returns the former top; at the root it is 200 with popped null, no event id, the same version")
    func pop() async throws {
        try await withApp { app in
            let id = try await app.createSession(stack: ["home", "a", "b"])
            let popped = try await app.request("POST", sessionPath(id, "/pop"))
            #expect(popped.status == 200)
            #expect(popped.string(at: "/popped/id") == "b", "the screen itself, as popViewController returns it")
            #expect(popped.ids(at: "/removed") == ["b"])
            #expect(popped.string(at: "/operation") == "pop")
            #expect(popped.string(at: "/from") == "b")
            #expect(popped.string(at: "/to") == "a")
            #expect(popped.integer(at: "/version") == 4)
            #expect(popped.integer(at: "/eventId") == 4)
            #expect(popped.ids(at: "/stack/screens") == ["home", "a"])
            #expect(try await app.request("POST", sessionPath(id, "/pop"), json: #"{"animated":false}"#).string(at: "/popped/id") == "a")

            let atRoot = try await app.request("POST", sessionPath(id, "/pop"))
            #expect(atRoot.status == 200)
            #expect(atRoot.isNull(at: "/popped"))
            #expect(atRoot.isNull(at: "/eventId"))
            #expect(atRoot.integer(at: "/version") == 5)
            #expect(atRoot.header("ETag") == "\"5\"")
            #expect(atRoot.string(at: "/operation") == "none")
            #expect(atRoot.bool(at: "/isTransition") == false)
            #expect(atRoot.bool(at: "/changed") == false)
            #expect(atRoot.ids(at: "/removed") == [])
            #expect((atRoot.value(at: "/events") as? [Any])?.isEmpty == true, "S-13: nothing shown, nothing announced")
            #expect(atRoot.ids(at: "/stack/screens") == ["home"])
            #expect(try await app.session(id).header("ETag") == "\"5\"")
            #expect(try await app.latestEventID() == 5, "S-4: no event at the root")
        }
    }

    @Test("S-9: pop to root removes everything above the root, bottom to top; at the root nothing changes")
    func popToRoot() async throws {
        try await withApp { app in
            let id = try await app.createSession(stack: ["home", "a", "b", "c"])
            let popped = try await app.request("POST", sessionPath(id, "/pop-to-root"))
            #expect(popped.status == 200)
            #expect(popped.string(at: "/action") == "popToRoot")
            #expect(popped.string(at: "/operation") == "pop")
            #expect(popped.ids(at: "/removed") == ["a", "b", "c"])
            #expect(popped.ids(at: "/stack/screens") == ["home"])
            #expect(popped.integer(at: "/eventId") == 5)
            let again = try await app.request("POST", sessionPath(id, "/pop-to-root"), json: "{}")
            #expect(again.status == 200)
            #expect(again.ids(at: "/removed") == [])
            #expect(again.isNull(at: "/eventId"))
            #expect(again.integer(at: "/version") == 5)
            #expect(try await app.latestEventID() == 5)
        }
    }

    @Test("S-6..S-8: pop to a screen removes those above it; to the top nothing; to a screen not on the stack 409 with UIKit's message")
    func popTo() async throws {
        try await withApp { app in
            let id = try await app.createSession(stack: ["home", "a", "b", "c"])
            let popped = try await app.request("POST", sessionPath(id, "/pop-to"), json: #"{"screenId":"a"}"#)
            #expect(popped.status == 200)
            #expect(popped.string(at: "/action") == "popTo")
            #expect(popped.ids(at: "/removed") == ["b", "c"], "S-6: bottom to top")
            #expect(popped.string(at: "/from") == "c")
            #expect(popped.string(at: "/to") == "a")
            #expect(popped.ids(at: "/stack/screens") == ["home", "a"])
            #expect(popped.integer(at: "/version") == 5)

            let toTop = try await app.request("POST", sessionPath(id, "/pop-to"), json: #"{"screenId":"a"}"#)
            #expect(toTop.status == 200)
            #expect(toTop.ids(at: "/removed") == [], "S-7")
            #expect(toTop.string(at: "/operation") == "none")
            #expect(toTop.isNull(at: "/eventId"))
            #expect(toTop.integer(at: "/version") == 5)

            let missing = try await app.request("POST", sessionPath(id, "/pop-to"), json: #"{"screenId":"c"}"#)
            expectProblem(missing, 409, "screen-not-on-stack")
            #expect(missing.string(at: "/uikitMessage") == "Tried to pop to a view controller that doesn't exist.")
            #expect(missing.string(at: "/rule") == "S-8")
            expectProblem(try await app.request("POST", sessionPath(id, "/pop-to"), json: #"{"screenId":"-c"}"#), 422,
                          "invalid-navigation", pointer: "/screenId")
            expectProblem(try await app.request("POST", sessionPath(id, "/pop-to"), json: #"{"screenId":5}"#), 400,
                          "invalid-body", pointer: "/screenId")
            expectProblem(try await app.request("POST", sessionPath(id, "/pop-to"), json: "{}"), 400, "invalid-body", pointer: "/screenId")
            let read = try await app.session(id)
            #expect(read.integer(at: "/version") == 5)
            #expect(read.ids(at: "/stack/screens") == ["home", "a"])
            #expect(try await app.latestEventID() == 5)
        }
    }

    @Test("S-10..S-12: PUT stack replaces the stack, reported as push or pop by whether the new top was on the stack")
    func setStack() async throws {
        try await withApp { app in
            let id = try await app.createSession(stack: ["home", "a", "b"])
            let shorter = try await app.request("PUT", sessionPath(id, "/stack"), json: stackBody(["home", "a"]))
            #expect(shorter.status == 200)
            #expect(shorter.string(at: "/action") == "setStack")
            #expect(shorter.string(at: "/operation") == "pop", "S-11: a was on the stack")
            #expect(shorter.ids(at: "/removed") == ["b"])
            #expect(shorter.integer(at: "/version") == 4)

            let longer = try await app.request("PUT", sessionPath(id, "/stack"), json: stackBody(["home", "a", "x"]))
            #expect(longer.string(at: "/operation") == "push", "S-11: x was not on the stack")
            #expect(longer.ids(at: "/removed") == [])

            let lower = try await app.request("PUT", sessionPath(id, "/stack"), json: stackBody(["y", "home", "a"]))
            #expect(lower.string(at: "/operation") == "pop", "a new root below does not matter: a was on the stack")
            #expect(lower.ids(at: "/removed") == ["x"])

            let sameTop = try await app.request("PUT", sessionPath(id, "/stack"), json: stackBody(["z", "a"]))
            #expect(sameTop.string(at: "/operation") == "none", "the top stays: nothing shown")
            #expect(sameTop.bool(at: "/changed") == true)
            #expect(sameTop.ids(at: "/removed") == ["y", "home"])
            #expect(sameTop.integer(at: "/eventId") == 7, "the stack changed: a new version and an event")

            let identical = try await app.request("PUT", sessionPath(id, "/stack"), json: stackBody(["z", "a"]))
            #expect(identical.status == 200)
            #expect(identical.isNull(at: "/eventId"))
            #expect(identical.integer(at: "/version") == 7)

            let duplicates = try await app.request("PUT", sessionPath(id, "/stack"), json: stackBody(["p", "q", "p"]))
            expectProblem(duplicates, 422, "duplicate-screens")
            #expect(duplicates.string(at: "/uikitMessage") == "All view controllers in a navigation controller must be distinct")
            #expect(duplicates.string(at: "/rule") == "S-10")
            let empty = try await app.request("PUT", sessionPath(id, "/stack"), json: #"{"screens":[]}"#)
            expectProblem(empty, 422, "invalid-navigation")
            #expect(empty.string(at: "/rule") == "S-12")
            let read = try await app.session(id)
            #expect(read.ids(at: "/stack/screens") == ["z", "a"])
            #expect(read.integer(at: "/version") == 7)
        }
    }

    @Test("N-1/S-13: a navigation subscriber gets create, push, pop in order, ids = versions; refusals and no-op pops send nothing", .overSockets("an event stream over TCP (SSEClient)"))
    func events() async throws {
        try await withApp { app in
            let stream = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?types=navigation")
            #expect(stream.head.status == 200)
            _ = try await stream.next()  // retry hint
            _ = try await stream.next()  // position
            let id = try await app.createSession()
            let pushed = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("detail", title: "Detail"))
            _ = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("detail"))  // refused, S-3
            _ = try await app.request("POST", sessionPath(id, "/pop-to"), json: #"{"screenId":"nowhere"}"#)  // refused, S-8
            _ = try await app.request("PUT", "/v1/profiles/ana/preferences/theme", json: #"{"value":"dark"}"#)  // filtered out
            let popped = try await app.request("POST", sessionPath(id, "/pop"))
            _ = try await app.request("POST", sessionPath(id, "/pop"))  // at the root: no event, S-4
            _ = try await app.request("POST", sessionPath(id, "/pop-to-root"))  // at the root: no event
            let deleted = try await app.request("DELETE", sessionPath(id))
            #expect(deleted.status == 200)

            let received = try await stream.messages { $0.id == "5" }
            #expect(received.map(\.event) == ["navigation", "navigation", "navigation", "navigation"])
            #expect(received.map(\.id) == ["1", "2", "4", "5"], "3 was the preference write")
            #expect(received[1].id == pushed.integer(at: "/eventId").map(String.init))
            #expect(received[2].id == popped.integer(at: "/version").map(String.init))

            let create = try received[0].json()
            #expect(create["profile"] as? String == "ana")
            #expect(create["session"] as? String == id)
            #expect(create["action"] as? String == "create")
            #expect(create["stack"] as? [String] == ["home"])
            #expect(create["version"] as? Int == 1)

            let push = try received[1].json()
            #expect(push["session"] as? String == id)
            #expect(push["action"] as? String == "push")
            #expect(push["operation"] as? String == "push")
            #expect(push["from"] as? String == "home")
            #expect(push["to"] as? String == "detail")
            #expect(push["removed"] as? [String] == [])
            #expect(push["stack"] as? [String] == ["home", "detail"])
            #expect(push["animated"] as? Bool == true)
            #expect(push["version"] as? Int == 2)
            #expect(!received[1].dataText.contains("Detail"), "events carry ids, never the screens' contents")

            let pop = try received[2].json()
            #expect(pop["action"] as? String == "pop")
            #expect(pop["operation"] as? String == "pop")
            #expect(pop["from"] as? String == "detail")
            #expect(pop["to"] as? String == "home")
            #expect(pop["removed"] as? [String] == ["detail"])
            #expect(pop["stack"] as? [String] == ["home"])

            let delete = try received[3].json()
            #expect(delete["action"] as? String == "delete")
            #expect(delete["session"] as? String == id)
            #expect(try await app.latestEventID() == 5, "nothing else was logged")
        }
    }
}
