import Foundation
import HTTPTestClient
import NavPrefsHTTPAPI
import NavPrefsApp
import Testing
import StoreTestSupport

/// Editing screens in place and what the navigation bar shows (B-1..B-9, B-11) over a real socket.
@Suite("Navigation sessions API: item edits and the navigation bar")
struct SessionBarAPITests {
    /// Replaces the navigation item of `screen`; requires 200.
    func setItem(_ app: TestApp, _ id: String, _ screen: String, _ item: String,
                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> TestResponse {
        let response = try await app.request("PUT", sessionPath(id, "/screens/\(screen)/navigation-item"), json: item)
        try #require(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
        return response
    }

    /// The bar as GET navigation-bar answers it; requires 200.
    func readBar(_ app: TestApp, _ id: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> TestResponse {
        let response = try await app.request("GET", sessionPath(id, "/navigation-bar"))
        try #require(response.status == 200, "\(response.text)", sourceLocation: sourceLocation)
        return response
    }

    @Test("B-1: PUT navigation-item changes the title the bar shows; a title view wins over the title; an unchanged item logs nothing")
    func title() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            var bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/title/source") == "none")
            #expect(bar.integer(at: "/version") == 1)

            let edited = try await setItem(app, id, "home", #"{"title":"Home"}"#)
            #expect(edited.integer(at: "/version") == 2)
            #expect(edited.integer(at: "/eventId") == 2)
            #expect(edited.header("ETag") == "\"2\"")
            #expect(edited.string(at: "/screen/id") == "home")
            #expect(edited.string(at: "/screen/navigationItem/title") == "Home")
            bar = try await readBar(app, id)
            #expect(bar.header("ETag") == "\"2\"")
            #expect(bar.string(at: "/session") == id)
            #expect(bar.string(at: "/navigationBar/top") == "home")
            #expect(bar.string(at: "/navigationBar/title/source") == "title")
            #expect(bar.string(at: "/navigationBar/title/title") == "Home")
            #expect(try await app.request("GET", sessionPath(id, "/navigation-bar"), headers: [("If-None-Match", "\"2\"")]).status == 304)

            let same = try await setItem(app, id, "home", #"{"title":"Home"}"#)
            #expect(same.isNull(at: "/eventId"))
            #expect(same.integer(at: "/version") == 2)

            _ = try await setItem(app, id, "home", #"{"title":"Home","titleView":"logo"}"#)
            bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/title/source") == "titleView")
            #expect(bar.string(at: "/navigationBar/title/titleView") == "logo")
            let events = try await app.loggedEvents()
            #expect(events.map { $0.data["action"] as? String } == ["create", "setNavigationItem", "setNavigationItem"])
            #expect(events.last?.data["screen"] as? String == "home")
        }
    }

    @Test("item edits name their screen: one not in the session is 404 screen-not-found, a body naming another id 422")
    func screenEdits() async throws {
        try await withApp { app in
            let id = try await app.createSession(stack: ["home", "detail"])
            expectProblem(try await app.request("PUT", sessionPath(id, "/screens/nowhere/navigation-item"), json: #"{"title":"x"}"#), 404,
                          "screen-not-found")
            expectProblem(try await app.request("PUT", sessionPath(id, "/screens/-bad/navigation-item"), json: #"{"title":"x"}"#), 404,
                          "screen-not-found")
            expectProblem(try await app.request("PUT", sessionPath(id, "/screens/nowhere"), json: #"{"id":"nowhere"}"#), 404,
                          "screen-not-found")
            expectProblem(try await app.request("PUT", sessionPath(id, "/screens/home"), json: #"{"id":"detail"}"#), 422,
                          "invalid-navigation", pointer: "/id")

            let replaced = try await app.request("PUT", sessionPath(id, "/screens/home"),
                                                 json: #"{"id":"home","navigationItem":{"title":"Start","backButtonTitle":"Up"}}"#)
            #expect(replaced.status == 200)
            #expect(replaced.string(at: "/screen/navigationItem/backButtonTitle") == "Up")
            #expect(replaced.integer(at: "/eventId") == 3)
            let read = try await app.session(id)
            #expect(read.ids(at: "/stack/screens") == ["home", "detail"], "an edit moves nothing")
            #expect(read.string(at: "/stack/screens/0/navigationItem/title") == "Start")
            #expect(read.integer(at: "/version") == 3)
            #expect(try await app.latestEventID() == 3, "the refused edits logged nothing")
        }
    }

    @Test("B-3..B-5: the back button is titled by the previous screen's backButtonTitle, else its title, else \"Back\"; none at the root")
    func backButtonTitle() async throws {
        try await withApp { app in
            let id = try await app.createSession(body: #"{"root":\#(screenJSON("home", title: "Home"))}"#)
            var bar = try await readBar(app, id)
            #expect(bar.isNull(at: "/navigationBar/left/backButton"))
            #expect(bar.string(at: "/navigationBar/left/backButtonRule") == "noneAtRoot")
            #expect(bar.isNull(at: "/navigationBar/back"))

            _ = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("detail", title: "Detail"))
            bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/back") == "home")
            #expect(bar.string(at: "/navigationBar/left/backButtonRule") == "previousTitle")
            #expect(bar.string(at: "/navigationBar/left/backButton/title") == "Home")
            #expect(bar.string(at: "/navigationBar/left/backButton/target") == "home")
            #expect(bar.value(at: "/navigationBar/left/backButton/fallbackTitles") as? [String] == ["Back"])
            #expect(bar.string(at: "/navigationBar/title/title") == "Detail", "the middle is the top's title")

            _ = try await setItem(app, id, "home", #"{"title":"Home","backButtonTitle":"Start"}"#)
            bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/left/backButtonRule") == "backButtonTitle")
            #expect(bar.string(at: "/navigationBar/left/backButton/title") == "Start")
            #expect(bar.value(at: "/navigationBar/left/backButton/fallbackTitles") as? [String] == ["Home", "Back"])

            _ = try await setItem(app, id, "home", "{}")
            bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/left/backButtonRule") == "genericTitle")
            #expect(bar.string(at: "/navigationBar/left/backButton/title") == "Back")

            _ = try await setItem(app, id, "home", #"{"title":"Home","backButtonTitle":"Start","backBarButtonItem":{"title":"Up","customView":"v"}}"#)
            bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/left/backButtonRule") == "backBarButtonItem", "B-4: it beats backButtonTitle")
            #expect(bar.string(at: "/navigationBar/left/backButton/title") == "Up")
            #expect(bar.bool(at: "/navigationBar/left/backButton/ignoresCustomView") == true)

            _ = try await setItem(app, id, "home", #"{"title":"Home","backButtonDisplayMode":"minimal"}"#)
            bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/left/backButtonRule") == "minimal")
            #expect(bar.isNull(at: "/navigationBar/left/backButton/title"))

            _ = try await setItem(app, id, "home", #"{"title":"Home","backButtonDisplayMode":"generic"}"#)
            #expect(try await readBar(app, id).string(at: "/navigationBar/left/backButton/title") == "Back")

            _ = try await app.request("POST", sessionPath(id, "/pop"))
            bar = try await readBar(app, id)
            #expect(bar.isNull(at: "/navigationBar/left/backButton"))
            #expect(bar.string(at: "/navigationBar/left/backButtonRule") == "noneAtRoot")
        }
    }

    @Test("B-3/B-6: custom left items replace the back button unless they supplement it; hidesBackButton hides it either way")
    func leftItems() async throws {
        try await withApp { app in
            let id = try await app.createSession(body: #"{"root":\#(screenJSON("home", title: "Home"))}"#)
            _ = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("detail"))

            _ = try await setItem(app, id, "detail", #"{"leftBarButtonItems":[{"title":"Close"},{"title":"Help"}]}"#)
            var bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/left/backButtonRule") == "replacedByLeftItems")
            #expect(bar.isNull(at: "/navigationBar/left/backButton"))
            #expect(bar.titles(at: "/navigationBar/left/items") == ["Close", "Help"])
            #expect(bar.bool(at: "/navigationBar/left/supplementsBackButton") == false)

            _ = try await setItem(app, id, "detail", #"{"leftBarButtonItem":{"title":"Close"},"leftItemsSupplementBackButton":true}"#)
            bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/left/backButtonRule") == "previousTitle")
            #expect(bar.string(at: "/navigationBar/left/backButton/title") == "Home")
            #expect(bar.titles(at: "/navigationBar/left/items") == ["Close"])
            #expect(bar.bool(at: "/navigationBar/left/supplementsBackButton") == true)

            _ = try await setItem(app, id, "detail",
                                  #"{"leftBarButtonItem":{"title":"Close"},"leftItemsSupplementBackButton":true,"hidesBackButton":true}"#)
            bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/left/backButtonRule") == "hidesBackButton")
            #expect(bar.isNull(at: "/navigationBar/left/backButton"))
            #expect(bar.titles(at: "/navigationBar/left/items") == ["Close"], "custom left items still show")

            _ = try await setItem(app, id, "home", #"{"title":"Home","leftBarButtonItem":{"title":"Menu"}}"#)
            _ = try await app.request("POST", sessionPath(id, "/pop"))
            bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/left/backButtonRule") == "noneAtRoot")
            #expect(bar.titles(at: "/navigationBar/left/items") == ["Menu"], "at the root the left side is the top's own items")
        }
    }

    @Test("B-2: the right side shows only the top's right items; the first is rightmost")
    func rightItems() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            _ = try await setItem(app, id, "home", #"{"rightBarButtonItem":{"title":"Edit"}}"#)
            #expect(try await readBar(app, id).titles(at: "/navigationBar/right/rightBarButtonItems") == ["Edit"])
            _ = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("detail"))
            var bar = try await readBar(app, id)
            #expect(bar.titles(at: "/navigationBar/right/rightBarButtonItems") == [], "the home screen's items leave with it")
            _ = try await setItem(app, id, "detail", #"{"rightBarButtonItems":[{"title":"a"},{"title":"b"},{"title":"c"}]}"#)
            bar = try await readBar(app, id)
            #expect(bar.titles(at: "/navigationBar/right/rightBarButtonItems") == ["a", "b", "c"])
            #expect(bar.titles(at: "/navigationBar/right/itemsLeftToRight") == ["c", "b", "a"])
            _ = try await app.request("POST", sessionPath(id, "/pop"))
            #expect(try await readBar(app, id).titles(at: "/navigationBar/right/rightBarButtonItems") == ["Edit"])
        }
    }

    @Test("B-7..B-9: PUT appearance shows in the bar's effective appearance for every screen; an item's layer only while it is on top")
    func appearance() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let body = ##"{"barStyle":"black","barTintColor":"#FF0000","tintColor":"white","isTranslucent":false,"titleTextAttributes":{"fontSize":20,"foregroundColor":"white"}}"##
            let set = try await app.request("PUT", sessionPath(id, "/appearance"), json: body)
            #expect(set.status == 200)
            #expect(set.integer(at: "/version") == 2)
            #expect(set.integer(at: "/eventId") == 2)
            #expect(set.string(at: "/appearance/barTintColor") == "#FF0000")
            #expect(set.ids(at: "/stack/screens") == ["home"], "the answer is the whole session")

            var bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/appearance/barStyle") == "black")
            #expect(bar.string(at: "/navigationBar/appearance/barTintColor") == "#FF0000")
            #expect(bar.bool(at: "/navigationBar/appearance/barTintIsTranslucent") == false)
            #expect(bar.bool(at: "/navigationBar/appearance/isTranslucent") == false)
            #expect(bar.string(at: "/navigationBar/appearance/translucencySource") == "bar")
            #expect(bar.string(at: "/navigationBar/appearance/tintColor") == "white")
            #expect(bar.integer(at: "/navigationBar/appearance/titleTextAttributes/fontSize") == 20)
            #expect(bar.string(at: "/navigationBar/appearance/standard/source") == "bar")
            #expect(bar.string(at: "/navigationBar/appearance/scrollEdge/source") == "standardWithTransparentBackground")

            let again = try await app.request("PUT", sessionPath(id, "/appearance"), json: body)
            #expect(again.isNull(at: "/eventId"), "the same appearance changes nothing")
            #expect(again.integer(at: "/version") == 2)

            _ = try await app.request("POST", sessionPath(id, "/push"),
                                      json: ##"{"screen":{"id":"detail","navigationItem":{"standardAppearance":{"background":"opaque","backgroundColor":"#00FF00"}}}}"##)
            bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/appearance/barTintColor") == "#FF0000", "B-7: shared by every screen")
            #expect(bar.string(at: "/navigationBar/appearance/standard/source") == "item")
            #expect(bar.string(at: "/navigationBar/appearance/standard/appearance/backgroundColor") == "#00FF00")
            #expect(bar.string(at: "/navigationBar/appearance/compact/source") == "standard", "B-8: compact falls back to the item's standard")
            _ = try await app.request("POST", sessionPath(id, "/pop"))
            bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/appearance/standard/source") == "bar", "the item's layer left with it")

            _ = try await app.request("PUT", sessionPath(id, "/appearance"), json: "{}")
            bar = try await readBar(app, id)
            #expect(bar.bool(at: "/navigationBar/appearance/isTranslucent") == true, "B-9: translucent by default")
            #expect(bar.string(at: "/navigationBar/appearance/translucencySource") == "systemDefault")
            #expect(bar.isNull(at: "/navigationBar/appearance/barTintColor"))
        }
    }

    @Test("B-11: with the seed's custom push, a pushed screen gets the nearby item in place of the back button; the root never does")
    func seedBackItem() async throws {
        try await withApp { app in
            let id = try await app.createSession(body: #"{"root":{"id":"home","navigationItem":{"title":"Home"}}}"#)
            let options = try await app.request("PUT", sessionPath(id, "/options"), json: #"{"seedCustomBackItem":true}"#)
            #expect(options.status == 200)
            #expect(options.bool(at: "/options/seedCustomBackItem") == true)
            #expect(options.integer(at: "/eventId") == 2)
            #expect(try await readBar(app, id).titles(at: "/navigationBar/left/items") == [])
            _ = try await app.request("POST", sessionPath(id, "/push"), json: pushBody("detail"))
            let bar = try await readBar(app, id)
            #expect(bar.string(at: "/navigationBar/left/backButtonRule") == "replacedByLeftItems")
            #expect(bar.string(at: "/navigationBar/left/items/0/image") == "nearby")
            #expect(bar.string(at: "/navigationBar/left/items/0/action") == "pop")
        }
    }
}
