/// One screen of a navigation session: the analogue of a view controller on a
/// `UINavigationController`'s stack. Its id is its identity (unique within the session); the
/// rest is what the bar and the gestures need to know about it.
public struct Screen: Sendable, Hashable, Identifiable, StrictJSONDecodable {
    public var id: ScreenID
    public var navigationItem: NavigationItem
    /// The screen's own bar in a customizable (XZ) session (G-11); `nil`: the screen does not
    /// adopt `XZNavigationBarCustomizable`.
    public var customBar: CustomBar?
    /// The screen's gesture answers in a customizable (XZ) session; `nil`: the screen does not
    /// adopt `XZNavigationGestureDrivable` (G-5, G-7).
    public var gestures: GestureSettings?

    public init(id: ScreenID, navigationItem: NavigationItem = NavigationItem(), customBar: CustomBar? = nil,
                gestures: GestureSettings? = nil) {
        self.id = id
        self.navigationItem = navigationItem
        self.customBar = customBar
        self.gestures = gestures
    }

    /// `{"id": "home", "navigationItem": {...}, "customBar": {...}, "gestures": {...}}`; only
    /// `id` is required (a view controller always has a navigation item, empty until set).
    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        let idPath = reader.pointer("id")
        self.init(id: try MemberReader.screenID(reader.required("id"), at: idPath),
                  navigationItem: try reader.decode("navigationItem", as: NavigationItem.self) ?? NavigationItem(),
                  customBar: try reader.decode("customBar", as: CustomBar.self),
                  gestures: try reader.decode("gestures", as: GestureSettings.self))
        try reader.finish()
        try validate(at: path)
    }

    public var json: JSONValue {
        .object([
            "id": .string(id.rawValue),
            "navigationItem": navigationItem.json,
            "customBar": jsonOrNull(customBar, \.json),
            "gestures": jsonOrNull(gestures, \.json),
        ])
    }

    /// Checks that the screen is within ``NavigationLimits`` and makes sense on its own:
    /// texts and item counts, and gesture targets that do not name the screen itself (a forward
    /// target with its own id could never be pushed, S-3; a back target naming it would pop
    /// nothing, S-7), forward targets nested at most ``NavigationLimits/maxForwardDepth`` deep.
    /// Decoding runs it; values built in code should too before they reach a store.
    /// - Parameter path: where the screen sits in the body, for the error's pointer.
    public func validate(at path: String = "") throws(NavigationDecodingError) {
        try validate(at: path, depth: 0)
    }

    private func validate(at path: String, depth: Int) throws(NavigationDecodingError) {
        try navigationItem.validate(at: JSONPointer.appending("navigationItem", to: path))
        guard let gestures else { return }
        let gesturesPath = JSONPointer.appending("gestures", to: path)
        try gestures.edgeInsets?.validate(at: JSONPointer.appending("edgeInsets", to: gesturesPath))
        if gestures.backTarget == id {
            throw NavigationDecodingError(path: JSONPointer.appending("backTarget", to: gesturesPath),
                                          problem: .invalidValue("a screen cannot go back to itself"))
        }
        guard let forward = gestures.forwardTarget else { return }
        let forwardPath = JSONPointer.appending("forwardTarget", to: gesturesPath)
        if forward.id == id {
            throw NavigationDecodingError(path: JSONPointer.appending("id", to: forwardPath),
                                          problem: .invalidValue("a screen cannot go forward to itself"))
        }
        guard depth + 1 <= NavigationLimits.maxForwardDepth else {
            throw NavigationDecodingError(path: forwardPath,
                                          problem: .invalidValue("forward targets nest at most \(NavigationLimits.maxForwardDepth) deep"))
        }
        try forward.validate(at: forwardPath, depth: depth + 1)
    }

    /// The screen as seed 002's custom push leaves it (B-11): its left items replaced by the
    /// `nearby` item that pops (`leftBarButtonItem = ...` after `super.pushViewController`).
    public var withSeedBackItem: Screen {
        var screen = self
        screen.navigationItem.leftBarButtonItem = .seedBackItem
        return screen
    }
}
