/// What kind of navigation controller a session imitates: plain UIKit, seed 002's subclass (a
/// custom back item, a restored or full-screen swipe back), or XZNavigationController
/// (seed 003). Chosen per session; all off is plain `UINavigationController`.
public struct NavigationOptions: Sendable, Hashable, StrictJSONDecodable {
    /// The recognizer that drives back (and forward) pans.
    public enum BackGesture: String, Sendable, CaseIterable {
        /// UIKit's `interactivePopGestureRecognizer`: back only, from the leading edge, and only
        /// while the back button shows (G-2).
        case interactivePop
        /// Seed 002's full-screen pan (`handleNavigationTransition:` on a pan over the whole
        /// view, begins when `viewControllers.count > 1`); the native recognizer is disabled.
        case seedFullScreenPan
        /// XZNavigationController's pan (`isCustomizable = true`, G-10): the native recognizer is
        /// disabled and waits for it to fail; screens' gesture settings apply (G-3..G-9).
        case xzNavigationPan
    }

    /// B-11: every push puts seed 002's `nearby` back item on the pushed screen.
    public var seedCustomBackItem: Bool
    /// G-2: seed 002's fix that sets `interactivePopGestureRecognizer.delegate = nil` above the
    /// root, so a swipe back works despite a custom left item (read only with `interactivePop`).
    public var seedRestoresSwipeBack: Bool
    public var backGesture: BackGesture

    public init(seedCustomBackItem: Bool = false, seedRestoresSwipeBack: Bool = false, backGesture: BackGesture = .interactivePop) {
        self.seedCustomBackItem = seedCustomBackItem
        self.seedRestoresSwipeBack = seedRestoresSwipeBack
        self.backGesture = backGesture
    }

    /// XZ's `isCustomizable` (seed 003's `isNavigationBarCustomizable`, G-10): screens' custom
    /// bars (G-11) and gesture settings take effect.
    public var isCustomizable: Bool { backGesture == .xzNavigationPan }

    /// `{"seedCustomBackItem": true, "seedRestoresSwipeBack": true, "seedFullScreenPop": false,
    /// "isCustomizable": false}`, each false when absent. `seedFullScreenPop` and
    /// `isCustomizable` both replace the native recognizer, so they are not accepted together.
    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        let seedCustomBackItem = try reader.bool("seedCustomBackItem") ?? false
        let seedRestoresSwipeBack = try reader.bool("seedRestoresSwipeBack") ?? false
        let fullScreen = try reader.bool("seedFullScreenPop") ?? false
        let customizable = try reader.bool("isCustomizable") ?? false
        try reader.finish()
        if fullScreen && customizable {
            throw NavigationDecodingError(path: reader.pointer("seedFullScreenPop"), problem: .conflicts(with: "isCustomizable"))
        }
        self.init(seedCustomBackItem: seedCustomBackItem, seedRestoresSwipeBack: seedRestoresSwipeBack,
                  backGesture: customizable ? .xzNavigationPan : fullScreen ? .seedFullScreenPan : .interactivePop)
    }

    public var json: JSONValue {
        .object([
            "seedCustomBackItem": .bool(seedCustomBackItem),
            "seedRestoresSwipeBack": .bool(seedRestoresSwipeBack),
            "seedFullScreenPop": .bool(backGesture == .seedFullScreenPan),
            "isCustomizable": .bool(isCustomizable),
        ])
    }
}
