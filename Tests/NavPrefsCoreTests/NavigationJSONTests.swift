import NavPrefsCore
import NavPrefsJSON
import Testing

/// The JSON mapping of navigation values: round trips, strict decoding with member paths, limits.
@Suite("Navigation JSON")
struct NavigationJSONTests {
    /// A screen using every member.
    static let fullScreen = Screen(
        id: Nav.id("detail.1"),
        navigationItem: NavigationItem(
            title: "Detail", titleView: "logo",
            leftBarButtonItems: [BarButtonItem(title: "Edit", style: .done, action: "edit")],
            rightBarButtonItems: [BarButtonItem(systemItem: .add), BarButtonItem(image: "gear", customView: "spinner", isEnabled: false)],
            backBarButtonItem: BarButtonItem(title: ""), backButtonTitle: "Back to detail", backButtonDisplayMode: .minimal,
            hidesBackButton: true, leftItemsSupplementBackButton: true, largeTitleDisplayMode: .never,
            standardAppearance: NavigationBarAppearance(background: .opaque, backgroundColor: BarColor("#AABBCC"),
                                                        backgroundImage: BarImage(name: "bg", isOpaque: true), shadowColor: BarColor("clear"),
                                                        shadowImage: BarImage(name: ""), titleTextAttributes: TextAttributes(fontSize: 17.5),
                                                        largeTitleTextAttributes: TextAttributes(foregroundColor: BarColor("white"))),
            scrollEdgeAppearance: NavigationBarAppearance(background: .transparent),
            compactAppearance: .systemDefault, compactScrollEdgeAppearance: nil),
        customBar: CustomBar(isTranslucent: false, prefersLargeTitles: true, isHidden: false),
        gestures: GestureSettings(edgeInsets: GestureEdgeInsets(leading: 30, trailing: nil),
                                  forwardTarget: Screen(id: Nav.id("next"), navigationItem: NavigationItem(title: "Next")),
                                  backTarget: Nav.id("home")))

    static let fullAppearance = BarAppearance(
        barStyle: .black, barTintColor: BarColor("#11223344"), tintColor: BarColor("systemBlue"),
        titleTextAttributes: TextAttributes(fontSize: 19, foregroundColor: BarColor("white")), isTranslucent: false,
        backgroundImage: BarImage(name: "navBar", isOpaque: true), shadowImage: BarImage(name: ""), prefersLargeTitles: true,
        isHidden: true, standardAppearance: NavigationBarAppearance(background: .opaque),
        scrollEdgeAppearance: NavigationBarAppearance(background: .transparent),
        compactAppearance: NavigationBarAppearance(backgroundColor: BarColor("red")),
        compactScrollEdgeAppearance: NavigationBarAppearance(shadowColor: BarColor("black")))

    @Test("round trip: a screen, an item, an appearance, a pan and a session decode from their own JSON, also as text")
    func roundTrips() throws {
        #expect(try Screen(json: Self.fullScreen.json) == Self.fullScreen)
        #expect(try Screen(json: JSONValue.parse(Self.fullScreen.json.jsonText)) == Self.fullScreen)
        #expect(try NavigationItem(json: Self.fullScreen.navigationItem.json) == Self.fullScreen.navigationItem)
        #expect(try BarAppearance(json: Self.fullAppearance.json) == Self.fullAppearance)
        #expect(try BarAppearance(json: JSONValue.parse(BarAppearance.systemDefault.json.jsonText)) == .systemDefault)
        let pan = Nav.pan(startX: 12.5, dx: -3, dy: 1, vx: 2, width: 390, direction: .rightToLeft)
        #expect(try PanGesture(json: JSONValue.parse(pan.json.jsonText)) == pan)
        for options in [NavigationOptions(), NavigationOptions(seedCustomBackItem: true, seedRestoresSwipeBack: true),
                        NavigationOptions(backGesture: .seedFullScreenPan), Nav.xz] {
            #expect(try NavigationOptions(json: options.json) == options)
        }
        var session = Nav.session([Nav.screen("home"), Self.fullScreen], appearance: Self.fullAppearance, options: Nav.xz)
        try session.present(Nav.screen("sheet"))
        #expect(try NavigationSession(json: JSONValue.parse(session.json.jsonText)) == session)
    }

    @Test("minimal bodies: a screen needs only its id; null means absent; every default is UIKit's")
    func minimal() throws {
        let screen = try Screen(json: Nav.parse(#"{"id":"home"}"#))
        #expect(screen == Screen(id: Nav.id("home")))
        let nulls = try Screen(json: Nav.parse(#"{"id":"home","navigationItem":{"title":null,"leftBarButtonItems":null},"customBar":null,"gestures":null}"#))
        #expect(nulls == screen)
        let item = screen.navigationItem
        #expect(item.backButtonDisplayMode == .default && item.largeTitleDisplayMode == .automatic)
        #expect(!item.hidesBackButton && !item.leftItemsSupplementBackButton)
        #expect(try CustomBar(json: Nav.parse("{}")) == CustomBar(isTranslucent: true, prefersLargeTitles: false, isHidden: false))
        #expect(try BarButtonItem(json: Nav.parse(#"{"title":"Go"}"#)) == BarButtonItem(title: "Go", style: .plain, isEnabled: true))
        #expect(try NavigationSession(json: Nav.parse(#"{"screens":[{"id":"a"}]}"#)) == NavigationSession(root: Nav.screen("a")))
    }

    @Test("leftBarButtonItem and rightBarButtonItem are accepted for one item, never beside their plural")
    func singularItems() throws {
        let item = try NavigationItem(json: Nav.parse(#"{"leftBarButtonItem":{"image":"nearby","action":"pop"},"rightBarButtonItem":{"title":"+"}}"#))
        #expect(item.leftBarButtonItems == [.seedBackItem])
        #expect(item.rightBarButtonItems == [Nav.item("+")])
        #expect(item.json.member("leftBarButtonItem") == nil)
        #expect(throws: NavigationDecodingError(path: "/leftBarButtonItem", problem: .conflicts(with: "leftBarButtonItems"))) {
            try NavigationItem(json: Nav.parse(#"{"leftBarButtonItem":{"title":"a"},"leftBarButtonItems":[]}"#))
        }
    }

    @Test("strict decoding names the offending member with a JSON Pointer", arguments: [
        (#"{"id":"a","tilte":"x"}"#, "/tilte", NavigationDecodingError.Problem.unknownMember),
        (#"{"id":"a","navigationItem":{"rightBarButtonItems":[{"title":"a"},{"titel":"b"}]}}"#, "/navigationItem/rightBarButtonItems/1/titel", .unknownMember),
        (#"{"navigationItem":{}}"#, "/id", .missingMember),
        (#"{"id":null}"#, "/id", .missingMember),
        (#"{"id":5}"#, "/id", .wrongType(expected: "a string", found: "integer")),
        (#"[]"#, "", .wrongType(expected: "an object", found: "array")),
        (#"{"id":"a","navigationItem":{"title":["x"]}}"#, "/navigationItem/title", .wrongType(expected: "a string", found: "array")),
        (#"{"id":"a","navigationItem":{"hidesBackButton":"yes"}}"#, "/navigationItem/hidesBackButton", .wrongType(expected: "a boolean", found: "string")),
        (#"{"id":"a","navigationItem":{"leftBarButtonItems":{}}}"#, "/navigationItem/leftBarButtonItems", .wrongType(expected: "an array", found: "object")),
        (#"{"id":"a","navigationItem":{"backButtonDisplayMode":"compact"}}"#, "/navigationItem/backButtonDisplayMode",
         .invalidValue(#"must be one of "default", "generic", "minimal""#)),
        (#"{"id":"-a"}"#, "/id", .invalidValue("a screen id starts with a letter or a digit")),
        (#"{"id":"a b"}"#, "/id", .invalidValue("a screen id uses only letters, digits, '.', '_' and '-'")),
        (#"{"id":"a","gestures":{"backTarget":"a"}}"#, "/gestures/backTarget", .invalidValue("a screen cannot go back to itself")),
        (#"{"id":"a","gestures":{"forwardTarget":{"id":"a"}}}"#, "/gestures/forwardTarget/id", .invalidValue("a screen cannot go forward to itself")),
        (#"{"id":"a","gestures":{"edgeInsets":{"leading":-1}}}"#, "/gestures/edgeInsets/leading", .invalidValue("an inset is 0 or more points")),
        (#"{"id":"a","gestures":{"edgeInsets":{"top":1}}}"#, "/gestures/edgeInsets/top", .unknownMember),
        (#"{"id":"a","navigationItem":{"rightBarButtonItems":[{}]}}"#, "/navigationItem/rightBarButtonItems/0",
         .invalidValue("a bar button item needs a title, an image, a systemItem or a customView")),
        (#"{"id":"a","navigationItem":{"backBarButtonItem":{"systemItem":"done","title":"x"}}}"#, "/navigationItem/backBarButtonItem/systemItem",
         .conflicts(with: "title")),
        (##"{"id":"a","navigationItem":{"standardAppearance":{"backgroundColor":"#12345"}}}"##, "/navigationItem/standardAppearance/backgroundColor",
         .invalidValue(##"a color is "#RRGGBB", "#RRGGBBAA" or a color name such as "white""##)),
        (#"{"id":"a","navigationItem":{"standardAppearance":{"titleTextAttributes":{"fontSize":0}}}}"#,
         "/navigationItem/standardAppearance/titleTextAttributes/fontSize", .invalidValue("a font size is above 0 and at most 1000 points")),
        (#"{"id":"a","navigationItem":{"standardAppearance":{"backgroundImage":{"isOpaque":true}}}}"#,
         "/navigationItem/standardAppearance/backgroundImage/name", .missingMember),
        (#"{"id":"a","a/b~c":1}"#, "/a~1b~0c", .unknownMember),
    ])
    func strictScreen(body: String, path: String, problem: NavigationDecodingError.Problem) {
        #expect(throws: NavigationDecodingError(path: path, problem: problem)) { try Screen(json: Nav.parse(body)) }
    }

    @Test("strict decoding of appearances, pans, options and sessions", arguments: [
        ("appearance", #"{"barStyle":"blackTranslucent"}"#, "/barStyle", NavigationDecodingError.Problem.invalidValue(#"must be one of "default", "black""#)),
        ("appearance", #"{"translucent":true}"#, "/translucent", .unknownMember),
        ("appearance", #"{"isTranslucent":1}"#, "/isTranslucent", .wrongType(expected: "a boolean", found: "integer")),
        ("appearance", ##"{"barTintColor":"#GG0000"}"##, "/barTintColor", .invalidValue(##"a color is "#RRGGBB", "#RRGGBBAA" or a color name such as "white""##)),
        ("pan", #"{"start":{"x":1,"y":1},"translation":{"x":0,"y":0},"velocity":{"x":0,"y":0}}"#, "/width", .missingMember),
        ("pan", #"{"start":{"x":1},"translation":{"x":0,"y":0},"velocity":{"x":0,"y":0},"width":1}"#, "/start/y", .missingMember),
        ("pan", #"{"start":{"x":1,"y":1},"translation":{"x":0,"y":0},"velocity":{"x":"fast","y":0},"width":9}"#, "/velocity/x", .wrongType(expected: "a number", found: "string")),
        ("pan", #"{"start":{"x":10,"y":1},"translation":{"x":0,"y":0},"velocity":{"x":0,"y":0},"width":9}"#, "/start/x", .invalidValue("a pan starts inside the view: 0...width")),
        ("pan", #"{"start":{"x":1,"y":1},"translation":{"x":0,"y":0},"velocity":{"x":0,"y":0},"width":9,"layoutDirection":"rtl"}"#,
         "/layoutDirection", .invalidValue(#"must be one of "leftToRight", "rightToLeft""#)),
        ("options", #"{"seedFullScreenPop":true,"isCustomizable":true}"#, "/seedFullScreenPop", .conflicts(with: "isCustomizable")),
        ("options", #"{"isNavigationBarCustomizable":true}"#, "/isNavigationBarCustomizable", .unknownMember),
        ("session", #"{"screens":[]}"#, "/screens", .invalidValue("a stack holds at least one screen")),
        ("session", #"{"screens":[{"id":"a"},{"id":"a"}]}"#, "/screens", .invalidValue("a stack lists each screen once; repeated: a")),
        ("session", #"{"screens":[{"id":"a"}],"presented":{"id":"a"}}"#, "/presented", .invalidValue("screen 'a' is on the stack and cannot be presented")),
        ("session", #"{"screens":[{"id":"a"},{"id":1}]}"#, "/screens/1/id", .wrongType(expected: "a string", found: "integer")),
    ])
    func strictOthers(kind: String, body: String, path: String, problem: NavigationDecodingError.Problem) {
        let json = Nav.parse(body)
        #expect(throws: NavigationDecodingError(path: path, problem: problem)) {
            switch kind {
            case "appearance": _ = try BarAppearance(json: json)
            case "pan": _ = try PanGesture(json: json)
            case "options": _ = try NavigationOptions(json: json)
            default: _ = try NavigationSession(json: json)
            }
        }
    }

    @Test("paths are relative to where a value sits in the body")
    func nestedPaths() {
        #expect(throws: NavigationDecodingError(path: "/push/screen/id", problem: .missingMember)) {
            try Screen(json: Nav.parse("{}"), at: "/push/screen")
        }
        #expect(throws: NavigationDecodingError(path: "/gesture/width", problem: .invalidValue("the width is above 0 points"))) {
            try PanGesture(json: Nav.parse(#"{"start":{"x":0,"y":0},"translation":{"x":0,"y":0},"velocity":{"x":0,"y":0},"width":0}"#), at: "/gesture")
        }
    }

    @Test("limit: texts hold at most 256 Unicode scalars, counted as scalars", arguments: [
        ("title", 256, true), ("title", 257, false), ("backButtonTitle", 257, false), ("titleView", 257, false),
    ])
    func textLimit(member: String, length: Int, accepted: Bool) {
        let text = String(repeating: "é", count: length)
        let body = JSONValue.object(["id": .string("a"), "navigationItem": .object([member: .string(text)])])
        if accepted {
            #expect(throws: Never.self) { try Screen(json: body) }
        } else {
            #expect(throws: NavigationDecodingError(path: "/navigationItem/\(member)", problem: .tooLong(limit: 256, length: length))) {
                try Screen(json: body)
            }
        }
        // A combining mark is a scalar of its own: 200 "e" + U+0301 are 400 scalars, though 200 characters.
        let combining = String(repeating: "e\u{301}", count: 200)
        #expect(throws: NavigationDecodingError(path: "/navigationItem/title", problem: .tooLong(limit: 256, length: 400))) {
            try Screen(id: Nav.id("a"), navigationItem: NavigationItem(title: combining)).validate()
        }
    }

    @Test("limit: at most 16 bar button items per side, forward targets 4 deep, 64 screens in a stack body", arguments: [16, 17])
    func countLimits(count: Int) throws {
        let items = JSONValue.array(Array(repeating: .object(["title": .string("x")]), count: count))
        let body = JSONValue.object(["id": .string("a"), "navigationItem": .object(["rightBarButtonItems": items])])
        if count <= NavigationLimits.maxBarButtonItemsPerSide {
            #expect(try Screen(json: body).navigationItem.rightBarButtonItems.count == count)
        } else {
            #expect(throws: NavigationDecodingError(path: "/navigationItem/rightBarButtonItems", problem: .tooMany(limit: 16, count: count))) {
                try Screen(json: body)
            }
        }

        func chain(_ depth: Int) -> Screen {
            (0..<depth).reversed().reduce(Nav.screen("f\(depth)")) { next, level in
                Nav.screen("f\(level)", gestures: GestureSettings(forwardTarget: next))
            }
        }
        #expect(throws: Never.self) { try chain(4).validate() }
        let fifth = String(repeating: "/gestures/forwardTarget", count: 5)
        #expect(throws: NavigationDecodingError(path: fifth, problem: .invalidValue("forward targets nest at most 4 deep"))) {
            try chain(5).validate()
        }
        #expect(throws: NavigationDecodingError.self) { try Screen(json: chain(5).json) }

        let screens = JSONValue.array((0..<65).map { .object(["id": .string("s\($0)")]) })
        #expect(throws: NavigationDecodingError(path: "/stack", problem: .tooMany(limit: 64, count: 65))) {
            try NavigationStack.screens(json: screens, at: "/stack")
        }
    }

    @Test("colors: #RRGGBB, #RRGGBBAA or a name", arguments: [
        ("#a1B2c3", true), ("#A1B2C3D4", true), ("white", true), ("systemBrown", true), ("#123", false), ("#12345G", false),
        ("", false), ("red green", false), ("#", false),
    ])
    func colors(text: String, valid: Bool) {
        #expect((BarColor(text) != nil) == valid)
    }

    @Test("a transition's JSON has the operation, from, to, removed screens and animated; its event payload carries ids only")
    func transitionJSON() throws {
        let transition = try Nav.stack(["a", "b", "c"]).popping(to: Nav.id("a"), animated: false)
        let json = transition.json
        #expect(json.member("action") == .string("popTo"))
        #expect(json.member("operation") == .string("pop"))
        #expect(json.member("from") == .string("c"))
        #expect(json.member("to") == .string("a"))
        #expect(json.member("animated") == .bool(false))
        #expect(json.member("isTransition") == .bool(true))
        #expect(json.member("removed") == .array([Nav.screen("b").json, Nav.screen("c").json]))
        #expect(json.member("popped") == nil)
        #expect(json.member("stack", "top") == .string("a"))
        #expect(json.member("events") == .array([
            .object(["name": .string("willShow"), "screen": .string("a"), "animated": .bool(false)]),
            .object(["name": .string("didShow"), "screen": .string("a"), "animated": .bool(false)]),
        ]))
        #expect(transition.eventPayload["removed"] == .array([.string("b"), .string("c")]))
        #expect(transition.eventPayload["stack"] == .array([.string("a")]))
        #expect(Nav.stack(["a", "b"]).popping().json.member("popped") == Nav.screen("b").json)
    }

    @Test("the bar state's JSON says which rule chose the back button and lists the right items left to right")
    func barJSON() {
        let top = Nav.screen("b", item: NavigationItem(title: "B", rightBarButtonItems: ["1", "2"].map(Nav.item)))
        let json = Nav.session([Nav.screen("a", title: "Home"), top]).bar.json
        #expect(json.member("title", "source") == .string("title"))
        #expect(json.member("left", "backButtonRule") == .string("previousTitle"))
        #expect(json.member("left", "backButton", "title") == .string("Home"))
        #expect(json.member("left", "backButton", "fallbackTitles") == .array([.string("Back")]))
        #expect(json.member("right", "itemsLeftToRight") == .array([Nav.item("2").json, Nav.item("1").json]))
        #expect(json.member("appearance", "scrollEdge", "source") == .string("standardWithTransparentBackground"))
        #expect(json.member("appearance", "translucencySource") == .string("systemDefault"))
        #expect(json.member("largeTitle", "rule") == .string("notPreferred"))
    }

    @Test("the gesture evaluation's and availability's JSON name operation, target, refusal rule and finish")
    func gestureJSON() throws {
        let evaluation = Nav.session(["a"]).evaluateGesture(Nav.pan(vx: 800)).json
        #expect(evaluation.member("operation") == .string("none"))
        #expect(evaluation.member("refusal") == .object(["reason": .string("atRoot"), "rule": .string("G-1")]))
        #expect(evaluation.member("wouldFinish") == .bool(false))
        let finishing = Nav.session(["a", "b"]).evaluateGesture(Nav.pan(dx: 10, vx: 800)).json
        #expect(finishing.member("operation") == .string("pop"))
        #expect(finishing.member("target") == .string("a"))
        #expect(finishing.member("finishedBy") == .string("velocity"))
        #expect(finishing.member("recognizer") == .string("interactivePop"))
        let availability = Nav.session(["a", "b"]).gestureAvailability.json
        #expect(availability.member("back", "region") == .object(["kind": .string("leadingEdge"), "width": .number(20)]))
        #expect(availability.member("forward", "canBegin") == .bool(false))
        #expect(availability.member("interactivePopGestureEnabled") == .bool(true))
        var session = Nav.session(["a", "b"])
        #expect(try session.performGesture(Nav.pan(dx: 10, vx: 800)).json.member("transition", "operation") == .string("pop"))
    }

    @Test("error texts are sentences that name the place")
    func descriptions() {
        #expect(NavigationDecodingError(path: "/id", problem: .missingMember).description == "/id is required")
        #expect(NavigationDecodingError(path: "", problem: .wrongType(expected: "an object", found: "array")).description
            == "the body must be an object, not array")
        #expect(NavigationError.notOnStack(Nav.id("z")).description == "screen 'z' is not on the stack")
        #expect(ScreenIDError.tooLong(length: 65).description == "a screen id has at most 64 characters, not 65")
        #expect(throws: ScreenIDError.tooLong(length: 65)) { try ScreenID(String(repeating: "a", count: 65)) }
    }
}
