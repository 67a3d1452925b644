/// How a session's navigation bar looks: the one `UINavigationBar` every screen of the session
/// shares (B-7, seed 002: "只要一个视图控制器改变了UINavigationBar的属性则影响是全局的").
///
/// Holds both generations of UIKit's bar styling: the legacy properties seed 002 sets
/// (`barStyle`, `barTintColor`, `tintColor`, `titleTextAttributes`, `isTranslucent`, background
/// and shadow images) and the four iOS 13+ appearance layers (B-8). Screens override the layers
/// through their navigation item, and (XZ sessions) translucency, large titles and hiding
/// through their custom bar (G-11). ``NavigationBarState`` resolves what shows.
public struct BarAppearance: Sendable, Hashable, StrictJSONDecodable {
    /// `UIBarStyle`: `default` is dark text on a light bar, `black` light text on a dark bar
    /// (seed 002: 白底黑字 / 黑底白字).
    public enum BarStyle: String, Sendable, CaseIterable {
        case `default`, black
    }

    public var barStyle: BarStyle
    /// The bar's background color; drawn translucent unless translucency is off (B-9).
    public var barTintColor: BarColor?
    /// The color of bar button items and the back indicator.
    public var tintColor: BarColor?
    public var titleTextAttributes: TextAttributes?
    /// `nil`: UIKit's default, true unless the background image is fully opaque (B-9).
    public var isTranslucent: Bool?
    public var backgroundImage: BarImage?
    public var shadowImage: BarImage?
    /// Large titles show only when this is true (B-10).
    public var prefersLargeTitles: Bool
    /// `UINavigationController.isNavigationBarHidden`.
    public var isHidden: Bool
    /// The bar's standard layer (never `nil` in UIKit: a default layer until set).
    public var standardAppearance: NavigationBarAppearance
    public var scrollEdgeAppearance: NavigationBarAppearance?
    public var compactAppearance: NavigationBarAppearance?
    public var compactScrollEdgeAppearance: NavigationBarAppearance?

    public init(barStyle: BarStyle = .default, barTintColor: BarColor? = nil, tintColor: BarColor? = nil,
                titleTextAttributes: TextAttributes? = nil, isTranslucent: Bool? = nil, backgroundImage: BarImage? = nil,
                shadowImage: BarImage? = nil, prefersLargeTitles: Bool = false, isHidden: Bool = false,
                standardAppearance: NavigationBarAppearance = .systemDefault, scrollEdgeAppearance: NavigationBarAppearance? = nil,
                compactAppearance: NavigationBarAppearance? = nil, compactScrollEdgeAppearance: NavigationBarAppearance? = nil) {
        self.barStyle = barStyle
        self.barTintColor = barTintColor
        self.tintColor = tintColor
        self.titleTextAttributes = titleTextAttributes
        self.isTranslucent = isTranslucent
        self.backgroundImage = backgroundImage
        self.shadowImage = shadowImage
        self.prefersLargeTitles = prefersLargeTitles
        self.isHidden = isHidden
        self.standardAppearance = standardAppearance
        self.scrollEdgeAppearance = scrollEdgeAppearance
        self.compactAppearance = compactAppearance
        self.compactScrollEdgeAppearance = compactScrollEdgeAppearance
    }

    /// A bar nobody styled.
    public static let systemDefault = BarAppearance()

    /// Every member is optional; absent members take the defaults of ``systemDefault``.
    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        self.init(
            barStyle: try reader.choice("barStyle", BarStyle.self) ?? .default,
            barTintColor: try reader.decode("barTintColor", BarColor.decode),
            tintColor: try reader.decode("tintColor", BarColor.decode),
            titleTextAttributes: try reader.decode("titleTextAttributes", as: TextAttributes.self),
            isTranslucent: try reader.bool("isTranslucent"),
            backgroundImage: try reader.decode("backgroundImage", as: BarImage.self),
            shadowImage: try reader.decode("shadowImage", as: BarImage.self),
            prefersLargeTitles: try reader.bool("prefersLargeTitles") ?? false,
            isHidden: try reader.bool("isHidden") ?? false,
            standardAppearance: try reader.decode("standardAppearance", as: NavigationBarAppearance.self) ?? .systemDefault,
            scrollEdgeAppearance: try reader.decode("scrollEdgeAppearance", as: NavigationBarAppearance.self),
            compactAppearance: try reader.decode("compactAppearance", as: NavigationBarAppearance.self),
            compactScrollEdgeAppearance: try reader.decode("compactScrollEdgeAppearance", as: NavigationBarAppearance.self))
        try reader.finish()
    }

    public var json: JSONValue {
        .object([
            "barStyle": .string(barStyle.rawValue),
            "barTintColor": jsonOrNull(barTintColor, \.json),
            "tintColor": jsonOrNull(tintColor, \.json),
            "titleTextAttributes": jsonOrNull(titleTextAttributes, \.json),
            "isTranslucent": jsonOrNull(isTranslucent, JSONValue.bool),
            "backgroundImage": jsonOrNull(backgroundImage, \.json),
            "shadowImage": jsonOrNull(shadowImage, \.json),
            "prefersLargeTitles": .bool(prefersLargeTitles),
            "isHidden": .bool(isHidden),
            "standardAppearance": standardAppearance.json,
            "scrollEdgeAppearance": jsonOrNull(scrollEdgeAppearance, \.json),
            "compactAppearance": jsonOrNull(compactAppearance, \.json),
            "compactScrollEdgeAppearance": jsonOrNull(compactScrollEdgeAppearance, \.json),
        ])
    }

    /// Checks the limits (texts, font sizes) of a value built in code; decoding checks them too.
    /// - Parameter path: where the value sits in the body, for the error's pointer.
    public func validate(at path: String = "") throws(NavigationDecodingError) {
        try titleTextAttributes?.validate(at: JSONPointer.appending("titleTextAttributes", to: path))
        try backgroundImage?.validate(at: JSONPointer.appending("backgroundImage", to: path))
        try shadowImage?.validate(at: JSONPointer.appending("shadowImage", to: path))
        try standardAppearance.validate(at: JSONPointer.appending("standardAppearance", to: path))
        try scrollEdgeAppearance?.validate(at: JSONPointer.appending("scrollEdgeAppearance", to: path))
        try compactAppearance?.validate(at: JSONPointer.appending("compactAppearance", to: path))
        try compactScrollEdgeAppearance?.validate(at: JSONPointer.appending("compactScrollEdgeAppearance", to: path))
    }

    /// B-9: what `isTranslucent` reads as: the value set, else false for a fully opaque
    /// background image, else true.
    public var effectiveIsTranslucent: Bool {
        isTranslucent ?? !(backgroundImage?.isOpaque ?? false)
    }
}
