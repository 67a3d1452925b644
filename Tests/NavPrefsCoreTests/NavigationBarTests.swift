import NavPrefsCore
import Testing

/// Bar resolution rules B-1..B-11 of shared/docs/semantics.md, on ``NavigationBarState``.
@Suite("Navigation bar (semantics B)")
struct NavigationBarTests {
    private static func bar(_ screens: [Screen], appearance: BarAppearance = .systemDefault) -> NavigationBarState {
        NavigationBarState(stack: Nav.stack(screens), appearance: appearance)
    }

    @Test("B-1: the middle shows the title view if set (even with a title), else the title, else nothing", arguments: [
        (String?.none, String?.none, NavigationBarState.Title.Source.none),
        ("Detail", nil, .title),
        (nil, "logo", .titleView),
        ("Detail", "logo", .titleView),
        ("", nil, .none),
    ])
    func b1Title(title: String?, titleView: String?, source: NavigationBarState.Title.Source) {
        let state = Self.bar([Nav.screen("a", item: NavigationItem(title: title, titleView: titleView))])
        #expect(state.title.source == source)
        #expect(state.title.titleView == titleView)
        #expect(state.title.text == (source == .none ? nil : title))
    }

    @Test("B-2: the right side shows only the top's right items; [0] is rightmost, so left to right is reversed")
    func b2Right() {
        let items = ["+", "-", "clear"].map(Nav.item)
        let back = Nav.screen("a", item: NavigationItem(rightBarButtonItems: [Nav.item("other")]))
        let state = Self.bar([back, Nav.screen("b", item: NavigationItem(rightBarButtonItems: items))])
        #expect(state.right.items == items)
        #expect(state.right.itemsLeftToRight.map(\.title) == ["clear", "-", "+"])
        #expect(Self.bar([back, Nav.screen("c")]).right.items.isEmpty)
        var item = NavigationItem(rightBarButtonItems: items)
        #expect(item.rightBarButtonItem == items[0])
        item.rightBarButtonItem = Nav.item("only")
        #expect(item.rightBarButtonItems == [Nav.item("only")])
    }

    @Test("B-3: left side precedence: custom left items, then the back item's backBarButtonItem, backButtonTitle, title, then \"Back\"; none at the root", arguments: [
        (NavigationItem(leftBarButtonItems: [Nav.item("L")]), NavigationItem(title: "Home"), NavigationBarState.BackButtonRule.replacedByLeftItems, String?.none),
        (NavigationItem(leftBarButtonItems: [Nav.item("L")], leftItemsSupplementBackButton: true), NavigationItem(title: "Home"), .previousTitle, "Home"),
        (NavigationItem(), NavigationItem(title: "Home", backBarButtonItem: Nav.item("Up"), backButtonTitle: "Prev"), .backBarButtonItem, "Up"),
        (NavigationItem(), NavigationItem(title: "Home", backButtonTitle: "Prev"), .backButtonTitle, "Prev"),
        (NavigationItem(), NavigationItem(title: "Home"), .previousTitle, "Home"),
        (NavigationItem(), NavigationItem(), .genericTitle, "Back"),
        (NavigationItem(), NavigationItem(title: ""), .genericTitle, "Back"),
    ])
    func b3LeftPrecedence(top: NavigationItem, back: NavigationItem, rule: NavigationBarState.BackButtonRule, title: String?) {
        let state = Self.bar([Nav.screen("a", item: back), Nav.screen("b", item: top)])
        #expect(state.left.backButtonRule == rule)
        #expect(state.left.backButton?.title == title)
        #expect((state.left.backButton != nil) == rule.showsButton)
        #expect(state.left.backButton.map { $0.target == Nav.id("a") } ?? true)
        #expect(state.left.items == top.leftBarButtonItems)
    }

    @Test("B-3: with one screen there is no back button; the left side is the top's custom items or empty", arguments: [
        [BarButtonItem](), [Nav.item("L")], [Nav.item("L1"), Nav.item("L2")],
    ])
    func b3Root(items: [BarButtonItem]) {
        let state = Self.bar([Nav.screen("a", item: NavigationItem(title: "Home", leftBarButtonItems: items, leftItemsSupplementBackButton: true))])
        #expect(state.left.backButtonRule == .noneAtRoot)
        #expect(state.left.backButton == nil)
        #expect(state.left.items == items)
        #expect(!state.left.supplementsBackButton)
    }

    @Test("B-4: backBarButtonItem beats backButtonTitle; a custom view in it is ignored, its title shown")
    func b4BackBarButtonItem() {
        let custom = BarButtonItem(title: "Up", customView: "fancyBack")
        let state = Self.bar([Nav.screen("a", item: NavigationItem(backBarButtonItem: custom, backButtonTitle: "Prev",
                                                                   backButtonDisplayMode: .minimal)),
                              Nav.screen("b")])
        #expect(state.left.backButtonRule == .backBarButtonItem)
        #expect(state.left.backButton?.title == "Up")
        #expect(state.left.backButton?.ignoresCustomView == true)
        let imageOnly = Self.bar([Nav.screen("a", item: NavigationItem(backBarButtonItem: BarButtonItem(image: "arrow"))), Nav.screen("b")])
        #expect(imageOnly.left.backButton?.image == "arrow")
        #expect(imageOnly.left.backButton?.title == nil)
        #expect(imageOnly.left.backButton?.ignoresCustomView == false)
    }

    @Test("B-5: the back item's display mode: default falls back backButtonTitle, title, \"Back\"; generic is \"Back\"; minimal the chevron", arguments: [
        (NavigationItem(title: "Home", backButtonTitle: "Prev"), NavigationBarState.BackButtonRule.backButtonTitle, String?.some("Prev"), ["Home", "Back"]),
        (NavigationItem(title: "Home"), .previousTitle, "Home", ["Back"]),
        (NavigationItem(title: "Back"), .previousTitle, "Back", []),
        (NavigationItem(), .genericTitle, "Back", []),
        (NavigationItem(title: "Home", backButtonTitle: ""), .backButtonTitle, nil, []),
        (NavigationItem(title: "Home", backButtonTitle: "Prev", backButtonDisplayMode: .generic), .genericTitle, "Back", []),
        (NavigationItem(title: "Home", backButtonTitle: "Prev", backButtonDisplayMode: .minimal), .minimal, nil, []),
    ])
    func b5DisplayMode(back: NavigationItem, rule: NavigationBarState.BackButtonRule, title: String?, fallbacks: [String]) {
        let button = Self.bar([Nav.screen("a", item: back), Nav.screen("b")]).left.backButton
        #expect(button?.rule == rule)
        #expect(button?.title == title)
        #expect(button?.fallbackTitles == fallbacks)
        #expect(button?.displayMode == back.backButtonDisplayMode)
    }

    @Test("B-6: hidesBackButton hides the back button even with leftItemsSupplementBackButton; custom left items still show", arguments: [false, true])
    func b6Hides(supplement: Bool) {
        let top = NavigationItem(leftBarButtonItems: [Nav.item("L")], hidesBackButton: true, leftItemsSupplementBackButton: supplement)
        let state = Self.bar([Nav.screen("a", title: "Home"), Nav.screen("b", item: top)])
        #expect(state.left.backButtonRule == .hidesBackButton)
        #expect(state.left.backButton == nil)
        #expect(state.left.items == [Nav.item("L")])
        #expect(!state.left.supplementsBackButton)
    }

    @Test("B-7: the bar's appearance is shared by every screen; an item's layer applies only while that item is on top")
    func b7Shared() throws {
        let tinted = BarAppearance(barStyle: .black, barTintColor: BarColor("#112233"), tintColor: BarColor("white"),
                                   titleTextAttributes: TextAttributes(fontSize: 19, foregroundColor: BarColor("white")))
        let override = NavigationBarAppearance(background: .opaque, backgroundColor: BarColor("systemBrown"))
        var session = Nav.session([Nav.screen("a"), Nav.screen("b", item: NavigationItem(standardAppearance: override))], appearance: tinted)
        for _ in 0..<2 {
            #expect(session.bar.appearance.barStyle == .black)
            #expect(session.bar.appearance.barTintColor == BarColor("#112233"))
            #expect(session.bar.appearance.titleTextAttributes?.fontSize == 19)
        }
        #expect(session.bar.appearance.standard == NavigationBarState.Layer(appearance: override, source: .item))
        session.pop()
        #expect(session.bar.appearance.standard == NavigationBarState.Layer(appearance: .systemDefault, source: .bar))
        #expect(session.bar.appearance.barStyle == .black)
    }

    @Test("B-8: layers fall back item > bar; scroll edge to the standard with a transparent background; compact to standard; compact scroll edge to scroll edge")
    func b8Fallbacks() {
        let barStandard = NavigationBarAppearance(background: .opaque, backgroundColor: BarColor("red"),
                                                  titleTextAttributes: TextAttributes(fontSize: 20))
        let bare = Self.bar([Nav.screen("a")], appearance: BarAppearance(standardAppearance: barStandard)).appearance
        #expect(bare.standard.source == .bar)
        #expect(bare.scrollEdge.source == .standardWithTransparentBackground)
        #expect(bare.scrollEdge.appearance == NavigationBarAppearance(background: .transparent, titleTextAttributes: TextAttributes(fontSize: 20)))
        #expect(bare.compact == NavigationBarState.Layer(appearance: barStandard, source: .standard))
        #expect(bare.compactScrollEdge == NavigationBarState.Layer(appearance: bare.scrollEdge.appearance, source: .scrollEdge))

        let barEdge = NavigationBarAppearance(backgroundColor: BarColor("blue"))
        let barCompact = NavigationBarAppearance(backgroundColor: BarColor("green"))
        let bar = BarAppearance(standardAppearance: barStandard, scrollEdgeAppearance: barEdge, compactAppearance: barCompact)
        let withBar = Self.bar([Nav.screen("a")], appearance: bar).appearance
        #expect(withBar.scrollEdge == NavigationBarState.Layer(appearance: barEdge, source: .bar))
        #expect(withBar.compact == NavigationBarState.Layer(appearance: barCompact, source: .bar))
        #expect(withBar.compactScrollEdge == NavigationBarState.Layer(appearance: barEdge, source: .scrollEdge))

        let itemStandard = NavigationBarAppearance(backgroundColor: BarColor("black"))
        let itemCompactEdge = NavigationBarAppearance(backgroundColor: BarColor("white"))
        let item = NavigationItem(standardAppearance: itemStandard, compactScrollEdgeAppearance: itemCompactEdge)
        let withItem = Self.bar([Nav.screen("a", item: item)], appearance: BarAppearance(standardAppearance: barStandard)).appearance
        #expect(withItem.standard == NavigationBarState.Layer(appearance: itemStandard, source: .item))
        #expect(withItem.scrollEdge.appearance == itemStandard.withTransparentBackground)
        #expect(withItem.compact == NavigationBarState.Layer(appearance: itemStandard, source: .standard))
        #expect(withItem.compactScrollEdge == NavigationBarState.Layer(appearance: itemCompactEdge, source: .item))
    }

    @Test("B-9: translucent by default, not with a fully opaque background image; an explicit value wins; the bar tint follows", arguments: [
        (Bool?.none, BarImage?.none, true, NavigationBarState.Source.systemDefault),
        (nil, BarImage(name: "navBar", isOpaque: true), false, .opaqueBackgroundImage),
        (nil, BarImage(name: "navBar", isOpaque: false), true, .systemDefault),
        (true, BarImage(name: "navBar", isOpaque: true), true, .bar),
        (false, nil, false, .bar),
    ])
    func b9Translucency(set: Bool?, image: BarImage?, expected: Bool, source: NavigationBarState.Source) {
        let appearance = BarAppearance(barTintColor: BarColor("#FF0000"), isTranslucent: set, backgroundImage: image)
        let resolved = Self.bar([Nav.screen("a")], appearance: appearance).appearance
        #expect(resolved.isTranslucent == expected)
        #expect(resolved.translucency == source)
        #expect(resolved.barTintIsTranslucent == expected)
        #expect(Self.bar([Nav.screen("a")], appearance: BarAppearance(isTranslucent: set)).appearance.barTintIsTranslucent == nil)
    }

    @Test("B-10: automatic takes the size of the item below; always and never force it; large only when the bar prefers large titles", arguments: [
        ([NavigationItem.LargeTitleDisplayMode.automatic], true, true, NavigationBarState.LargeTitle.Rule.rootDefault, String?.some("s0")),
        ([.automatic, .automatic], true, true, .rootDefault, "s0"),
        ([.never, .automatic], true, false, .inherited, "s0"),
        ([.always, .never, .automatic], true, false, .inherited, "s1"),
        ([.automatic, .never], true, false, .topItem, "s1"),
        ([.never, .always], true, true, .topItem, "s1"),
        ([.always], false, false, .notPreferred, nil),
        ([.automatic, .always], false, false, .notPreferred, nil),
    ])
    func b10LargeTitles(modes: [NavigationItem.LargeTitleDisplayMode], prefers: Bool, isLarge: Bool,
                        rule: NavigationBarState.LargeTitle.Rule, decidedBy: String?) {
        let screens = modes.enumerated().map { Nav.screen("s\($0.offset)", item: NavigationItem(largeTitleDisplayMode: $0.element)) }
        let largeTitle = Self.bar(screens, appearance: BarAppearance(prefersLargeTitles: prefers)).largeTitle
        #expect(largeTitle.isLarge == isLarge)
        #expect(largeTitle.rule == rule)
        #expect(largeTitle.decidedBy == decidedBy.map(Nav.id))
        #expect(largeTitle.displayMode == modes[modes.count - 1])
    }

    @Test("B-11: with the seed's custom push, a push leaving more than one screen gives the pushed item the \"nearby\" item that pops; the root never gets it")
    func b11SeedPush() throws {
        var session = Nav.session(["root"], options: NavigationOptions(seedCustomBackItem: true))
        #expect(session.stack.root.navigationItem.leftBarButtonItems.isEmpty)
        let transition = try session.push(Nav.screen("next", item: NavigationItem(leftBarButtonItems: [Nav.item("mine")])))
        #expect(transition.after.top.navigationItem.leftBarButtonItem == .seedBackItem)
        #expect(session.stack.top.navigationItem.leftBarButtonItems == [BarButtonItem(image: "nearby", style: .plain, action: "pop")])
        #expect(session.bar.left.backButtonRule == .replacedByLeftItems)
        #expect(session.bar.left.items.map(\.action) == [BarButtonItem.popAction])

        // The item's action pops, animated.
        let popped = session.pop()
        #expect(popped.animated && popped.popped?.id == Nav.id("next"))

        // Replacing the stack is not a push: no item is added, not even on a new top.
        try session.setScreens(["root", "fresh"].map { Nav.screen($0) })
        #expect(session.stack.top.navigationItem.leftBarButtonItems.isEmpty)

        // Off by default.
        var plain = Nav.session(["root"])
        try plain.push(Nav.screen("next"))
        #expect(plain.stack.top.navigationItem.leftBarButtonItems.isEmpty)
        #expect(plain.bar.left.backButtonRule == .genericTitle)
    }
}
