import Foundation
import HTTPTestClient
import NavPrefsHTTPAPI
import NavPrefsApp
import Testing
import StoreTestSupport

/// Gestures (G-1..G-10) and modal presentation (S-14) over a real socket.
@Suite("Navigation sessions API: gestures and presentation")
struct SessionGestureAPITests {
    /// A left-to-right pan in a 390 pt wide view.
    static func pan(startX: Double = 5, dx: Double, vx: Double, dy: Double = 0) -> String {
        #"{"start":{"x":\#(startX),"y":300},"translation":{"x":\#(dx),"y":\#(dy)},"velocity":{"x":\#(vx),"y":0},"width":390}"#
    }

    /// Released fast toward the trailing edge: a back pan that finishes by velocity.
    static let finishingBack = pan(dx: 30, vx: 800)
    /// Released slowly, short of 40 % of the width: cancelled.
    static let cancelledBack = pan(dx: 40, vx: 100)

    func gestures(_ app: TestApp, _ id: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> TestResponse {
        let response = try await app.request("GET", sessionPath(id, "/gestures"))
        try #require(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
        return response
    }

    @Test("G-1: at the root a back pan cannot begin; after a push it can, from the 20 pt leading edge, popping one level")
    func availability() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            var gestures = try await gestures(app, id)
            #expect(gestures.integer(at: "/version") == 1)
            #expect(gestures.string(at: "/gestures/recognizer") == "interactivePop")
            #expect(gestures.bool(at: "/gestures/interactivePopGestureEnabled") == true)
            #expect(gestures.bool(at: "/gestures/back/canBegin") == false)
            #expect(gestures.string(at: "/gestures/back/refusal/reason") == "atRoot")
            #expect(gestures.string(at: "/gestures/back/refusal/rule") == "G-1")
            #expect(gestures.string(at: "/gestures/back/operation") == "none")
            #expect(gestures.bool(at: "/gestures/forward/canBegin") == false)
            #expect(gestures.string(at: "/gestures/forward/refusal/rule") == "G-7")

            _ = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("detail"))
            gestures = try await self.gestures(app, id)
            #expect(gestures.bool(at: "/gestures/back/canBegin") == true)
            #expect(gestures.isNull(at: "/gestures/back/refusal"))
            #expect(gestures.string(at: "/gestures/back/operation") == "pop")
            #expect(gestures.string(at: "/gestures/back/target") == "home")
            #expect(gestures.string(at: "/gestures/back/region/kind") == "leadingEdge")
            #expect(gestures.integer(at: "/gestures/back/region/width") == 20)
            #expect(gestures.header("ETag") == "\"2\"")
        }
    }

    @Test("evaluating a pan says what it would do and changes nothing: same version, no event")
    func evaluate() async throws {
        try await withApp { app in
            let id = try await app.createSession(stack: ["home", "detail"])
            let finishing = try await app.request("POST", sessionPath(id, "/gestures/evaluate"), json: Self.finishingBack)
            #expect(finishing.status == 200)
            #expect(finishing.integer(at: "/version") == 2)
            #expect(finishing.string(at: "/evaluation/direction") == "back")
            #expect(finishing.string(at: "/evaluation/operation") == "pop")
            #expect(finishing.string(at: "/evaluation/target") == "home")
            #expect(finishing.bool(at: "/evaluation/wouldFinish") == true)
            #expect(finishing.string(at: "/evaluation/finishedBy") == "velocity")

            let byDistance = try await app.request("POST", sessionPath(id, "/gestures/evaluate"), json: Self.pan(dx: 200, vx: 100))
            #expect(byDistance.string(at: "/evaluation/finishedBy") == "distance")
            let cancelled = try await app.request("POST", sessionPath(id, "/gestures/evaluate"), json: Self.cancelledBack)
            #expect(cancelled.bool(at: "/evaluation/wouldFinish") == false)
            #expect(cancelled.string(at: "/evaluation/operation") == "pop")
            let outside = try await app.request("POST", sessionPath(id, "/gestures/evaluate"), json: Self.pan(startX: 100, dx: 200, vx: 800))
            #expect(outside.string(at: "/evaluation/refusal/reason") == "outsideEdge")
            #expect(outside.string(at: "/evaluation/refusal/rule") == "G-5")
            let forward = try await app.request("POST", sessionPath(id, "/gestures/evaluate"), json: Self.pan(startX: 380, dx: -200, vx: -800))
            #expect(forward.string(at: "/evaluation/direction") == "forward")
            #expect(forward.string(at: "/evaluation/refusal/reason") == "noForwardTarget")

            let read = try await app.session(id)
            #expect(read.integer(at: "/version") == 2)
            #expect(read.ids(at: "/stack/screens") == ["home", "detail"])
            #expect(try await app.latestEventID() == 2)
        }
    }

    @Test("G-9: performing a finishing back pan pops (new version, a navigation event); a cancelled pan changes nothing")
    func perform() async throws {
        try await withApp { app in
            let id = try await app.createSession(stack: ["home", "detail"])
            let cancelled = try await app.request("POST", sessionPath(id, "/gestures/perform"), json: Self.cancelledBack)
            #expect(cancelled.status == 200)
            #expect(cancelled.isNull(at: "/eventId"))
            #expect(cancelled.integer(at: "/version") == 2)
            #expect(cancelled.isNull(at: "/transition"))
            #expect(cancelled.bool(at: "/evaluation/wouldFinish") == false)
            #expect(try await app.session(id).ids(at: "/stack/screens") == ["home", "detail"])

            let finished = try await app.request("POST", sessionPath(id, "/gestures/perform"), json: Self.finishingBack)
            #expect(finished.status == 200)
            #expect(finished.integer(at: "/version") == 3)
            #expect(finished.integer(at: "/eventId") == 3)
            #expect(finished.header("ETag") == "\"3\"")
            #expect(finished.string(at: "/transition/operation") == "pop")
            #expect(finished.string(at: "/transition/interaction") == "finished")
            #expect(finished.string(at: "/transition/popped/id") == "detail")
            #expect(finished.ids(at: "/transition/stack/screens") == ["home"])
            #expect(try await app.session(id).ids(at: "/stack/screens") == ["home"])
            let event = try #require(try await app.loggedEvents().last)
            #expect(event.type == "navigation")
            #expect(event.data["action"] as? String == "pop")
            #expect(event.data["gesture"] as? String == "interactivePop")
            #expect(event.data["interaction"] as? String == "finished")
            #expect(event.data["version"] as? Int == 3)

            let atRoot = try await app.request("POST", sessionPath(id, "/gestures/perform"), json: Self.finishingBack)
            #expect(atRoot.status == 200)
            #expect(atRoot.string(at: "/evaluation/refusal/reason") == "atRoot")
            #expect(atRoot.isNull(at: "/eventId"))
            #expect(atRoot.integer(at: "/version") == 3)
            #expect(try await app.latestEventID() == 3)
        }
    }

    @Test("G-2: a custom left item disables UIKit's swipe back; the seed's fix (PUT options) restores it")
    func customLeftItemDisablesSwipe() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            _ = try await app.request("POST", sessionPath(id, "/push"),
                                      json: #"{"screen":{"id":"detail","navigationItem":{"leftBarButtonItem":{"title":"Close"}}}}"#)
            var gestures = try await gestures(app, id)
            #expect(gestures.bool(at: "/gestures/back/canBegin") == false)
            #expect(gestures.string(at: "/gestures/back/refusal/reason") == "customLeftItem")
            #expect(gestures.string(at: "/gestures/back/refusal/rule") == "G-2")
            let refused = try await app.request("POST", sessionPath(id, "/gestures/perform"), json: Self.finishingBack)
            #expect(refused.isNull(at: "/eventId"))

            let options = try await app.request("PUT", sessionPath(id, "/options"), json: #"{"seedRestoresSwipeBack":true}"#)
            #expect(options.status == 200)
            #expect(options.integer(at: "/eventId") == 3)
            gestures = try await self.gestures(app, id)
            #expect(gestures.bool(at: "/gestures/back/canBegin") == true)
            let performed = try await app.request("POST", sessionPath(id, "/gestures/perform"), json: Self.finishingBack)
            #expect(performed.integer(at: "/eventId") == 4)
            #expect(try await app.session(id).ids(at: "/stack/screens") == ["home"])
        }
    }

    @Test("G-10: seed 002's full-screen pan replaces UIKit's recognizer and pops from anywhere in the view")
    func fullScreenPan() async throws {
        try await withApp { app in
            let id = try await app.createSession(body: #"{"root":{"id":"home"},"options":{"seedFullScreenPop":true}}"#)
            _ = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("detail"))
            let gestures = try await gestures(app, id)
            #expect(gestures.string(at: "/gestures/recognizer") == "seedFullScreenPan")
            #expect(gestures.bool(at: "/gestures/interactivePopGestureEnabled") == false)
            #expect(gestures.string(at: "/gestures/back/region/kind") == "fullScreen")
            let performed = try await app.request("POST", sessionPath(id, "/gestures/perform"), json: Self.pan(startX: 200, dx: 30, vx: 800))
            #expect(performed.string(at: "/transition/operation") == "pop")
            #expect(performed.integer(at: "/version") == 3)
        }
    }

    @Test("G-7/G-8: in an XZ session a forward pan pushes the top's forward target; a back target pops to it")
    func xzTargets() async throws {
        try await withApp { app in
            let id = try await app.createSession(body: #"{"root":{"id":"home"},"options":{"isCustomizable":true}}"#)
            _ = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("a"))
            _ = try await app.request("POST", sessionPath(id, "/push"),
                                      json: #"{"screen":{"id":"b","gestures":{"forwardTarget":{"id":"next"},"backTarget":"home"}}}"#)
            let gestures = try await gestures(app, id)
            #expect(gestures.string(at: "/gestures/recognizer") == "xzNavigationPan")
            #expect(gestures.string(at: "/gestures/forward/target") == "next")
            #expect(gestures.string(at: "/gestures/back/operation") == "popTo")
            #expect(gestures.string(at: "/gestures/back/target") == "home")

            let forward = try await app.request("POST", sessionPath(id, "/gestures/perform"), json: Self.pan(startX: 380, dx: -30, vx: -800))
            #expect(forward.string(at: "/transition/operation") == "push")
            #expect(forward.ids(at: "/transition/stack/screens") == ["home", "a", "b", "next"])
            _ = try await app.request("POST", sessionPath(id, "/pop"))
            let back = try await app.request("POST", sessionPath(id, "/gestures/perform"), json: Self.pan(startX: 200, dx: 30, vx: 800))
            #expect(back.string(at: "/transition/action") == "popTo")
            #expect(back.ids(at: "/transition/removed") == ["a", "b"])
            #expect(try await app.session(id).ids(at: "/stack/screens") == ["home"])
        }
    }

    @Test("G-9: a cancelled back-to-any-page pan keeps the top but the screens it skipped stay removed (a new version, no transition)")
    func cancelledPopToKeepsSkippedRemoved() async throws {
        try await withApp { app in
            let id = try await app.createSession(body: #"{"root":{"id":"home"},"options":{"isCustomizable":true}}"#)
            _ = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("a"))
            _ = try await app.request("POST", sessionPath(id, "/push"), json: #"{"screen":{"id":"b","gestures":{"backTarget":"home"}}}"#)
            let cancelled = try await app.request("POST", sessionPath(id, "/gestures/perform"), json: Self.cancelledBack)
            #expect(cancelled.status == 200)
            #expect(cancelled.value(at: "/evaluation/removedEvenIfCancelled") as? [String] == ["a"])
            #expect(cancelled.string(at: "/transition/interaction") == "cancelled")
            #expect(cancelled.string(at: "/transition/operation") == "none")
            #expect(cancelled.integer(at: "/eventId") == 4)
            #expect(try await app.session(id).ids(at: "/stack/screens") == ["home", "b"])
        }
    }

    @Test("S-14: a presented screen is the visible one; one at a time, never one on the stack; dismiss with nothing presented changes nothing")
    func presentation() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let presented = try await app.request("POST", sessionPath(id, "/present"), json: #"{"screen":{"id":"modal"}}"#)
            #expect(presented.status == 200)
            #expect(presented.string(at: "/visible") == "modal")
            #expect(presented.string(at: "/presented/id") == "modal")
            #expect(presented.integer(at: "/eventId") == 2)
            #expect(presented.ids(at: "/stack/screens") == ["home"])

            expectProblem(try await app.request("POST", sessionPath(id, "/present"), json: #"{"screen":{"id":"other"}}"#), 409,
                          "already-presenting")
            expectProblem(try await app.request("POST", sessionPath(id, "/push"), json: pushBody("modal")), 409, "screen-is-presented")
            let edited = try await app.request("PUT", sessionPath(id, "/screens/modal/navigation-item"), json: #"{"title":"Sheet"}"#)
            #expect(edited.status == 200)
            #expect(edited.string(at: "/screen/id") == "modal")
            #expect(edited.string(at: "/screen/navigationItem/title") == "Sheet")

            let dismissed = try await app.request("POST", sessionPath(id, "/dismiss"))
            #expect(dismissed.status == 200)
            #expect(dismissed.string(at: "/visible") == "home")
            #expect(dismissed.isNull(at: "/presented"))
            #expect(dismissed.integer(at: "/eventId") == 4)
            let again = try await app.request("POST", sessionPath(id, "/dismiss"))
            #expect(again.status == 200)
            #expect(again.isNull(at: "/eventId"))
            #expect(again.integer(at: "/version") == 4)

            expectProblem(try await app.request("POST", sessionPath(id, "/present"), json: #"{"screen":{"id":"home"}}"#), 409, "screen-on-stack")
            #expect(try await app.latestEventID() == 4)
            #expect(try await app.loggedEvents().map { $0.data["action"] as? String } == ["create", "present", "setNavigationItem", "dismiss"])
        }
    }
}
