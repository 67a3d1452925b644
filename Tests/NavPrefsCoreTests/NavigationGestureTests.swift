import NavPrefsCore
import Testing

/// Gesture rules G-1..G-11 of shared/docs/semantics.md, on ``NavigationSession``'s gesture functions.
@Suite("Navigation gestures (semantics G)")
struct NavigationGestureTests {
    private static let recognizers: [NavigationOptions.BackGesture] = [.interactivePop, .seedFullScreenPan, .xzNavigationPan]

    /// A back pan that finishes: from the leading edge, fast, rightward (left to right).
    private static let backPan = Nav.pan(startX: 5, dx: 200, vx: 800)
    /// A forward pan that finishes: from the trailing edge, fast, leftward.
    private static let forwardPan = Nav.pan(startX: 395, dx: -200, vx: -800)

    @Test("G-1: a back pan never begins with one screen", arguments: recognizers)
    func g1Root(recognizer: NavigationOptions.BackGesture) {
        let session = Nav.session(["a"], options: NavigationOptions(backGesture: recognizer))
        #expect(session.gestureAvailability.back.refusal == .atRoot)
        #expect(!session.gestureAvailability.back.canBegin)
        #expect(session.evaluateGesture(Self.backPan).refusal == .atRoot)
        #expect(session.evaluateGesture(Self.backPan).operation == .none)
        #expect(GestureEvaluation.Refusal.atRoot.rule == "G-1")
    }

    @Test("G-2: a custom left item (or a hidden back button) disables UIKit's swipe back; the seed's fix restores it above the root", arguments: [
        (NavigationItem(leftBarButtonItems: [Nav.item("L")]), false, GestureEvaluation.Refusal?.some(.customLeftItem)),
        (NavigationItem(leftBarButtonItems: [Nav.item("L")], leftItemsSupplementBackButton: true), false, nil),
        (NavigationItem(hidesBackButton: true), false, .hiddenBackButton),
        (NavigationItem(leftBarButtonItems: [Nav.item("L")]), true, nil),
        (NavigationItem(hidesBackButton: true), true, nil),
        (NavigationItem(), false, nil),
    ])
    func g2CustomLeftItem(top: NavigationItem, restores: Bool, refusal: GestureEvaluation.Refusal?) {
        let options = NavigationOptions(seedRestoresSwipeBack: restores)
        let session = Nav.session([Nav.screen("a"), Nav.screen("b", item: top)], options: options)
        #expect(session.gestureAvailability.back.refusal == refusal)
        #expect(session.evaluateGesture(Self.backPan).refusal == refusal)
        // Only UIKit's recognizer cares: seed 002's full-screen pan and XZ's pan begin anyway.
        for recognizer in [NavigationOptions.BackGesture.seedFullScreenPan, .xzNavigationPan] {
            let other = Nav.session([Nav.screen("a"), Nav.screen("b", item: top)], options: NavigationOptions(backGesture: recognizer))
            #expect(other.gestureAvailability.back.canBegin)
        }
    }

    @Test("G-2: with the seed's custom push and fix, every pushed screen swipes back; the root still does not")
    func g2SeedPushAndFix() throws {
        var withFix = Nav.session(["root"], options: NavigationOptions(seedCustomBackItem: true, seedRestoresSwipeBack: true))
        #expect(withFix.gestureAvailability.back.refusal == .atRoot)
        try withFix.push(Nav.screen("next"))
        #expect(withFix.gestureAvailability.back.canBegin)

        var withoutFix = Nav.session(["root"], options: NavigationOptions(seedCustomBackItem: true))
        try withoutFix.push(Nav.screen("next"))
        #expect(withoutFix.gestureAvailability.back.refusal == .customLeftItem)
    }

    @Test("G-3: XZ recognizes a pan only if |translation.x| >= 10 x |translation.y|; the other recognizers do not check", arguments: [
        (100.0, 10.0, true), (100, 10.01, false), (-100, 10, true), (100, -11, false), (0, 0, true), (5, 1, false),
    ])
    func g3Horizontal(dx: Double, dy: Double, recognized: Bool) {
        let pan = Nav.pan(startX: 5, dx: dx, dy: dy, vx: 800)
        let xz = Nav.session(["a", "b"], options: Nav.xz)
        #expect((xz.evaluateGesture(pan).refusal != .notHorizontal) == recognized)
        #expect(Nav.session(["a", "b"]).evaluateGesture(pan).refusal != .notHorizontal)
    }

    @Test("G-4: velocity.x > 0 pops, < 0 pushes, 0 does nothing; right-to-left is mirrored", arguments: [
        (PanGesture.LayoutDirection.leftToRight, 300.0, GestureEvaluation.Direction.back),
        (.leftToRight, -300, .forward),
        (.leftToRight, 0, .none),
        (.rightToLeft, -300, .back),
        (.rightToLeft, 300, .forward),
        (.rightToLeft, 0, .none),
    ])
    func g4Direction(layout: PanGesture.LayoutDirection, vx: Double, direction: GestureEvaluation.Direction) {
        let forward = Nav.screen("next")
        let top = Nav.screen("b", gestures: GestureSettings(forwardTarget: forward))
        let session = Nav.session([Nav.screen("a"), top], options: Nav.xz)
        let evaluation = session.evaluateGesture(Nav.pan(startX: 200, dx: 0, vx: vx, direction: layout))
        #expect(evaluation.direction == direction)
        switch direction {
        case .back: #expect(evaluation.operation == .pop(to: Nav.id("a")))
        case .forward: #expect(evaluation.operation == .push(forward))
        case .none: #expect(evaluation.refusal == .noHorizontalVelocity)
        }
    }

    @Test("G-5: a screen without gesture settings pops only from within 20 pt of the leading edge (mirrored right-to-left)", arguments: [
        (PanGesture.LayoutDirection.leftToRight, 0.0, true), (.leftToRight, 20, true), (.leftToRight, 20.5, false), (.leftToRight, 300, false),
        (.rightToLeft, 400, true), (.rightToLeft, 380, true), (.rightToLeft, 379.5, false), (.rightToLeft, 5, false),
    ])
    func g5Edge(layout: PanGesture.LayoutDirection, startX: Double, allowed: Bool) {
        let vx: Double = layout == .leftToRight ? 800 : -800
        for options in [Nav.xz, NavigationOptions()] {
            let evaluation = Nav.session(["a", "b"], options: options).evaluateGesture(Nav.pan(startX: startX, vx: vx, direction: layout))
            #expect(evaluation.refusal == (allowed ? nil : .outsideEdge))
        }
        #expect(Nav.session(["a", "b"], options: NavigationOptions(backGesture: .seedFullScreenPan))
            .evaluateGesture(Nav.pan(startX: startX, vx: vx, direction: layout)).refusal == nil)
    }

    @Test("G-6: an adopting screen without insets pops from anywhere; with insets, pops start within leading, pushes within trailing; mirrored right-to-left", arguments: [
        (GestureEdgeInsets?.none, PanGesture.LayoutDirection.leftToRight, 300.0, 800.0, GestureEvaluation.Refusal?.none),
        (GestureEdgeInsets(leading: 50), .leftToRight, 50, 800, nil),
        (GestureEdgeInsets(leading: 50), .leftToRight, 51, 800, .outsideInsets),
        (GestureEdgeInsets(leading: 50), .rightToLeft, 350, -800, nil),
        (GestureEdgeInsets(leading: 50), .rightToLeft, 349, -800, .outsideInsets),
        (GestureEdgeInsets(trailing: 40), .leftToRight, 360, -800, nil),
        (GestureEdgeInsets(trailing: 40), .leftToRight, 359, -800, .outsideInsets),
        (GestureEdgeInsets(trailing: 40), .rightToLeft, 40, 800, nil),
        (GestureEdgeInsets(trailing: 40), .rightToLeft, 41, 800, .outsideInsets),
        (GestureEdgeInsets(trailing: 40), .leftToRight, 300, 800, nil),
        (GestureEdgeInsets(leading: 50), .leftToRight, 10, -800, nil),
    ])
    func g6Insets(insets: GestureEdgeInsets?, layout: PanGesture.LayoutDirection, startX: Double, vx: Double,
                  refusal: GestureEvaluation.Refusal?) {
        let top = Nav.screen("b", gestures: GestureSettings(edgeInsets: insets, forwardTarget: Nav.screen("c")))
        let session = Nav.session([Nav.screen("a"), top], options: Nav.xz)
        #expect(session.evaluateGesture(Nav.pan(startX: startX, vx: vx, direction: layout)).refusal == refusal)
        // UIKit's recognizer reads no settings: the 20 pt edge applies.
        #expect(Nav.session([Nav.screen("a"), top]).gestureAvailability.back.region == .defaultEdge)
    }

    @Test("G-7: a forward pan pushes only in XZ, when the top adopts the protocol and names a target", arguments: [
        (NavigationOptions.BackGesture.xzNavigationPan, GestureSettings?.some(GestureSettings(forwardTarget: Nav.screen("next"))), GestureEvaluation.Refusal?.none),
        (.xzNavigationPan, GestureSettings(), .noForwardTarget),
        (.xzNavigationPan, nil, .noForwardTarget),
        (.xzNavigationPan, GestureSettings(forwardTarget: Nav.screen("a")), .forwardTargetOnStack),
        (.interactivePop, GestureSettings(forwardTarget: Nav.screen("next")), .noForwardTarget),
        (.seedFullScreenPan, GestureSettings(forwardTarget: Nav.screen("next")), .noForwardTarget),
    ])
    func g7Forward(recognizer: NavigationOptions.BackGesture, settings: GestureSettings?, refusal: GestureEvaluation.Refusal?) throws {
        var session = Nav.session([Nav.screen("a"), Nav.screen("b", gestures: settings)], options: NavigationOptions(backGesture: recognizer))
        #expect(session.gestureAvailability.forward.refusal == refusal)
        let outcome = try session.performGesture(Self.forwardPan)
        #expect(outcome.evaluation.refusal == refusal)
        if refusal == nil {
            #expect(outcome.evaluation.operation == .push(Nav.screen("next")))
            #expect(outcome.transition?.operation == .push)
            #expect(outcome.transition?.interaction == .finished)
            #expect(session.stack.ids == ["a", "b", "next"].map(Nav.id))
        } else {
            #expect(outcome.transition == nil)
            #expect(session.stack.ids == ["a", "b"].map(Nav.id))
        }
    }

    @Test("G-8: no back target pops one level; a back target pops to it (back to any page)", arguments: [
        (ScreenID?.none, GestureEvaluation.Operation.pop(to: Nav.id("c")), ["a", "b", "c"]),
        (Nav.id("a"), .popTo(Nav.id("a")), ["a"]),
        (Nav.id("c"), .popTo(Nav.id("c")), ["a", "b", "c"]),
        (Nav.id("zz"), .none, ["a", "b", "c", "d"]),
    ])
    func g8BackTarget(target: ScreenID?, operation: GestureEvaluation.Operation, after: [String]) throws {
        let top = Nav.screen("d", gestures: GestureSettings(backTarget: target))
        var session = Nav.session([Nav.screen("a"), Nav.screen("b"), Nav.screen("c"), top], options: Nav.xz)
        let outcome = try session.performGesture(Self.backPan)
        #expect(outcome.evaluation.operation == operation)
        #expect(session.stack.ids == after.map(Nav.id))
        if operation == .none { #expect(outcome.evaluation.refusal == .backTargetNotOnStack) }
    }

    @Test("G-9: a pan finishes above 400 pt/s in its direction, else beyond 40 % of the width; otherwise it is cancelled", arguments: [
        (PanGesture.LayoutDirection.leftToRight, 20.0, 401.0, true, GestureEvaluation.Finish?.some(.velocity)),
        (.leftToRight, 20, 400, false, nil),
        (.leftToRight, 160, 300, false, nil),
        (.leftToRight, 161, 300, true, .distance),
        (.leftToRight, 161, 1, true, .distance),
        (.rightToLeft, -20, -401, true, .velocity),
        (.rightToLeft, -160, -300, false, nil),
        (.rightToLeft, -161, -300, true, .distance),
    ])
    func g9Finish(layout: PanGesture.LayoutDirection, dx: Double, vx: Double, finishes: Bool, by: GestureEvaluation.Finish?) {
        let startX: Double = layout == .leftToRight ? 5 : 395
        let evaluation = Nav.session(["a", "b"], options: Nav.xz).evaluateGesture(Nav.pan(startX: startX, dx: dx, vx: vx, direction: layout))
        #expect(evaluation.operation == .pop(to: Nav.id("a")))
        #expect(evaluation.wouldFinish == finishes)
        #expect(evaluation.finishedBy == by)
        #expect(evaluation.progress == min(abs(dx) / 400, 1))
    }

    @Test("G-9: forward pans finish by the same thresholds, measured toward the leading edge", arguments: [
        (-401.0, -10.0, true), (-400, -160, false), (-100, -161, true), (-100, 100, false),
    ])
    func g9ForwardFinish(vx: Double, dx: Double, finishes: Bool) {
        let top = Nav.screen("b", gestures: GestureSettings(forwardTarget: Nav.screen("c")))
        let evaluation = Nav.session([Nav.screen("a"), top], options: Nav.xz).evaluateGesture(Nav.pan(startX: 390, dx: dx, vx: vx))
        #expect(evaluation.operation == .push(Nav.screen("c")))
        #expect(evaluation.wouldFinish == finishes)
        #expect(evaluation.progress >= 0 && evaluation.progress <= 1)
    }

    @Test("G-9: a cancelled back-to-any-page pan restores the top but the screens it skipped stay removed (XZ known issue 3)")
    func g9CancelQuirk() throws {
        let top = Nav.screen("d", gestures: GestureSettings(backTarget: Nav.id("a")))
        var session = Nav.session([Nav.screen("a"), Nav.screen("b"), Nav.screen("c"), top], options: Nav.xz)
        let slow = Nav.pan(startX: 5, dx: 40, vx: 100)
        #expect(session.evaluateGesture(slow).removedEvenIfCancelled == ["b", "c"].map(Nav.id))
        let outcome = try session.performGesture(slow)
        #expect(!outcome.evaluation.wouldFinish)
        #expect(session.stack.ids == ["a", "d"].map(Nav.id))
        let transition = try #require(outcome.transition)
        #expect(transition.interaction == .cancelled)
        #expect(!transition.isTransition && transition.changed)
        #expect(transition.removed.map(\.id) == ["b", "c"].map(Nav.id))

        // A cancelled one-level pop changes nothing at all.
        var plain = Nav.session(["a", "b", "c"], options: Nav.xz)
        #expect(try plain.performGesture(slow).transition == nil)
        #expect(plain.stack.ids == ["a", "b", "c"].map(Nav.id))
        #expect(plain.evaluateGesture(slow).removedEvenIfCancelled.isEmpty)
    }

    @Test("G-9: a finishing pan performs its operation: pop, pop to the target, or push (with the seed's back item when on)")
    func g9Perform() throws {
        var session = Nav.session(["a", "b", "c"])
        let pop = try session.performGesture(Self.backPan)
        #expect(pop.transition?.popped?.id == Nav.id("c"))
        #expect(pop.transition?.interaction == .finished)
        #expect(session.stack.ids == ["a", "b"].map(Nav.id))

        let options = NavigationOptions(seedCustomBackItem: true, backGesture: .xzNavigationPan)
        var xz = Nav.session([Nav.screen("a", gestures: GestureSettings(forwardTarget: Nav.screen("n")))], options: options)
        _ = try xz.performGesture(Self.forwardPan)
        #expect(xz.stack.top.navigationItem.leftBarButtonItem == .seedBackItem)
    }

    @Test("G-10: XZ customization disables UIKit's interactive pop recognizer; so does seed 002's full-screen pan", arguments: [
        (NavigationOptions.BackGesture.interactivePop, true, false),
        (.seedFullScreenPan, false, false),
        (.xzNavigationPan, false, true),
    ])
    func g10Recognizer(recognizer: NavigationOptions.BackGesture, nativeEnabled: Bool, customizable: Bool) {
        let session = Nav.session(["a", "b"], options: NavigationOptions(backGesture: recognizer))
        #expect(session.gestureAvailability.recognizer == recognizer)
        #expect(session.gestureAvailability.interactivePopGestureEnabled == nativeEnabled)
        #expect(session.options.isCustomizable == customizable)
        #expect(session.evaluateGesture(Self.backPan).recognizer == recognizer)
    }

    @Test("G-11: in an XZ session the top's custom bar sets translucency, large titles and hiding of the native bar, which keeps them")
    func g11CustomBar() throws {
        let custom = CustomBar(isTranslucent: false, prefersLargeTitles: true, isHidden: true)
        var session = Nav.session(["a"], options: Nav.xz)
        #expect(session.bar.appearance.isTranslucent)
        try session.push(Nav.screen("b", customBar: custom))
        let bar = session.bar
        #expect(bar.usesCustomBar)
        #expect(!bar.appearance.isTranslucent && bar.appearance.translucency == .customBar)
        #expect(bar.appearance.prefersLargeTitles && bar.largeTitle.isLarge)
        #expect(bar.isHidden)

        // The native bar keeps what the custom bar set after the screen leaves (XZ sets it only
        // from screens with a custom bar).
        session.pop()
        #expect(!session.bar.usesCustomBar)
        #expect(session.appearance.isTranslucent == false && session.appearance.prefersLargeTitles && session.appearance.isHidden)

        // While bound, a change to the bar reaches the top's custom bar, and the reverse.
        try session.push(Nav.screen("c", customBar: CustomBar()))
        #expect(session.appearance.isTranslucent == true && !session.appearance.isHidden)
        session.setAppearance(BarAppearance(isTranslucent: false, isHidden: true))
        #expect(session.stack.top.customBar == CustomBar(isTranslucent: false, prefersLargeTitles: false, isHidden: true))
        try session.replaceScreen(Nav.screen("c", customBar: CustomBar(isTranslucent: true)))
        #expect(session.bar.appearance.isTranslucent && !session.bar.isHidden)
    }

    @Test("G-11: outside XZ customization a custom bar has no effect; turning customization on applies the top's at once")
    func g11NotCustomizable() {
        var session = Nav.session([Nav.screen("a", customBar: CustomBar(isTranslucent: false, isHidden: true))])
        #expect(!session.bar.usesCustomBar)
        #expect(session.bar.appearance.isTranslucent && !session.bar.isHidden)
        session.setOptions(Nav.xz)
        #expect(session.bar.usesCustomBar && session.bar.isHidden)
        #expect(session.appearance.isHidden)
    }

    @Test("pans must start inside a view of positive width, with finite numbers")
    func panValidation() {
        #expect(throws: NavigationDecodingError(path: "/width", problem: .invalidValue("the width is above 0 points"))) {
            try PanGesture(start: .init(x: 0, y: 0), translation: .init(x: 0, y: 0), velocity: .init(x: 0, y: 0), width: 0)
        }
        #expect(throws: NavigationDecodingError.self) {
            try PanGesture(start: .init(x: 401, y: 0), translation: .init(x: 0, y: 0), velocity: .init(x: 0, y: 0), width: 400)
        }
        #expect(throws: NavigationDecodingError.self) {
            try PanGesture(start: .init(x: 1, y: 0), translation: .init(x: .infinity, y: 0), velocity: .init(x: 0, y: 0), width: 400)
        }
        // Numbers beyond the 64-bit integer range, as openapi.yaml bounds every number of a body.
        #expect(throws: NavigationDecodingError.self) {
            try PanGesture(start: .init(x: 5, y: 0), translation: .init(x: 1e300, y: 0), velocity: .init(x: 0, y: 0), width: 390)
        }
        #expect(throws: NavigationDecodingError.self) {
            try PanGesture(start: .init(x: 5, y: 0), translation: .init(x: 0, y: 0), velocity: .init(x: -3.402823466e38, y: 0), width: 390)
        }
        #expect(throws: NavigationDecodingError(path: "/width", problem: .invalidValue("must be a finite number within ±\(Int64.max)"))) {
            try PanGesture(start: .init(x: 5, y: 0), translation: .init(x: 0, y: 0), velocity: .init(x: 0, y: 0), width: 1e300)
        }
        #expect(throws: Never.self) {
            try PanGesture(start: .init(x: 5, y: -9.2e18), translation: .init(x: 9.2e18, y: 0), velocity: .init(x: 0, y: 0), width: 9.2e18)
        }
    }
}
