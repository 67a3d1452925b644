/// A screen's answers to XZNavigationController's `XZNavigationGestureDrivable` (seed 003): where
/// a navigation pan may start, where a forward pan leads, and where a back pan returns to.
/// A screen without settings does not adopt the protocol (G-5: back from the 20 pt edge only,
/// no forward). Only customizable sessions read them (G-10).
public struct GestureSettings: Sendable, Hashable, StrictJSONDecodable {
    /// `edgeInsetsForGestureNavigation`: `nil` is the protocol default, full screen both ways (G-6).
    public var edgeInsets: GestureEdgeInsets?
    /// `viewControllerForGestureNavigation(.pop)`: `nil` pops one level; a screen on the stack
    /// pops to it, "back to any page" (G-8).
    public var backTarget: ScreenID?
    /// Storage of ``forwardTarget``: a screen holds settings that may hold a screen, and only an
    /// indirection (an array's buffer) lets a struct contain itself.
    private var forwardStorage: [Screen]

    public init(edgeInsets: GestureEdgeInsets? = nil, forwardTarget: Screen? = nil, backTarget: ScreenID? = nil) {
        self.edgeInsets = edgeInsets
        self.backTarget = backTarget
        forwardStorage = forwardTarget.map { [$0] } ?? []
    }

    /// `viewControllerForGestureNavigation(.push)`: the screen a forward pan pushes; `nil`, the
    /// protocol default, means no forward navigation (G-7). It is pushed as it is, so it must
    /// not be on the stack then.
    public var forwardTarget: Screen? {
        get { forwardStorage.first }
        set { forwardStorage = newValue.map { [$0] } ?? [] }
    }

    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        self.init(edgeInsets: try reader.decode("edgeInsets", as: GestureEdgeInsets.self),
                  forwardTarget: try reader.decode("forwardTarget", as: Screen.self),
                  backTarget: try reader.decode("backTarget", MemberReader.screenID))
        try reader.finish()
    }

    public var json: JSONValue {
        .object([
            "edgeInsets": jsonOrNull(edgeInsets, \.json),
            "forwardTarget": jsonOrNull(forwardTarget, \.json),
            "backTarget": jsonOrNull(backTarget) { .string($0.rawValue) },
        ])
    }
}

/// The part of `NSDirectionalEdgeInsets` XZ reads: `leading` bounds where a back pan may start,
/// `trailing` where a forward pan may start, measured from the leading and trailing edges of the
/// view (mirrored right-to-left; G-6). `top` and `bottom` are never read, so not kept.
///
/// A side left `nil` is full screen for its operation. XZ asks for insets per operation; this
/// one value answers both, and `nil` per side lets a screen keep one operation full screen.
public struct GestureEdgeInsets: Sendable, Hashable, StrictJSONDecodable {
    public var leading: Double?
    public var trailing: Double?

    public init(leading: Double? = nil, trailing: Double? = nil) {
        self.leading = leading
        self.trailing = trailing
    }

    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        self.init(leading: try reader.number("leading"), trailing: try reader.number("trailing"))
        try reader.finish()
        try validate(at: path)
    }

    public var json: JSONValue {
        .object(["leading": jsonOrNull(leading, JSONValue.number), "trailing": jsonOrNull(trailing, JSONValue.number)])
    }

    /// Insets are distances into the view: never negative.
    func validate(at path: String) throws(NavigationDecodingError) {
        for (key, value) in [("leading", leading), ("trailing", trailing)] {
            if let value, !(value >= 0) {
                throw NavigationDecodingError(path: JSONPointer.appending(key, to: path), problem: .invalidValue("an inset is 0 or more points"))
            }
        }
    }
}
