/// A screen's own navigation bar in an XZNavigationController session (seed 003,
/// `XZNavigationBarCustomizable`): the client draws it, the service keeps the three properties
/// of `XZNavigationBarProtocol` / `UIView` that the native bar takes over while the screen is on
/// top (G-11). Ignored unless the session is customizable (``NavigationOptions/isCustomizable``).
public struct CustomBar: Sendable, Hashable, StrictJSONDecodable {
    public var isTranslucent: Bool
    public var prefersLargeTitles: Bool
    public var isHidden: Bool

    /// The defaults of a fresh `XZNavigationBar`: translucent, small titles, shown.
    public init(isTranslucent: Bool = true, prefersLargeTitles: Bool = false, isHidden: Bool = false) {
        self.isTranslucent = isTranslucent
        self.prefersLargeTitles = prefersLargeTitles
        self.isHidden = isHidden
    }

    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        self.init(isTranslucent: try reader.bool("isTranslucent") ?? true,
                  prefersLargeTitles: try reader.bool("prefersLargeTitles") ?? false,
                  isHidden: try reader.bool("isHidden") ?? false)
        try reader.finish()
    }

    public var json: JSONValue {
        .object(["isTranslucent": .bool(isTranslucent), "prefersLargeTitles": .bool(prefersLargeTitles), "isHidden": .bool(isHidden)])
    }
}
