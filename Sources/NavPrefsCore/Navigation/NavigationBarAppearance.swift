/// One layer of iOS 13+ bar appearance (`UINavigationBarAppearance`): what the bar's background,
/// shadow and titles look like in one of its four situations (standard, scroll edge, compact,
/// compact scroll edge; B-8). The bar holds one per situation, a navigation item may override
/// each while it is on top (B-7).
public struct NavigationBarAppearance: Sendable, Hashable, StrictJSONDecodable {
    /// How the layer was configured before the properties below were set
    /// (`configureWithDefaultBackground()`, `...OpaqueBackground()`, `...TransparentBackground()`).
    public enum Background: String, Sendable, CaseIterable {
        /// The system's translucent material with a shadow.
        case `default`
        /// An opaque system background with a shadow.
        case opaque
        /// No background and no shadow.
        case transparent
    }

    public var background: Background
    public var backgroundColor: BarColor?
    public var backgroundImage: BarImage?
    public var shadowColor: BarColor?
    public var shadowImage: BarImage?
    public var titleTextAttributes: TextAttributes?
    public var largeTitleTextAttributes: TextAttributes?

    public init(background: Background = .default, backgroundColor: BarColor? = nil, backgroundImage: BarImage? = nil,
                shadowColor: BarColor? = nil, shadowImage: BarImage? = nil, titleTextAttributes: TextAttributes? = nil,
                largeTitleTextAttributes: TextAttributes? = nil) {
        self.background = background
        self.backgroundColor = backgroundColor
        self.backgroundImage = backgroundImage
        self.shadowColor = shadowColor
        self.shadowImage = shadowImage
        self.titleTextAttributes = titleTextAttributes
        self.largeTitleTextAttributes = largeTitleTextAttributes
    }

    /// What a fresh `UINavigationBarAppearance()` is: the bar's standard layer until set.
    public static let systemDefault = NavigationBarAppearance()

    /// This layer "modified to use a transparent background" (B-8, Apple's words for a missing
    /// scroll edge layer): as `configureWithTransparentBackground()` does, background and shadow
    /// are cleared and the text attributes kept.
    public var withTransparentBackground: NavigationBarAppearance {
        NavigationBarAppearance(background: .transparent, titleTextAttributes: titleTextAttributes,
                                largeTitleTextAttributes: largeTitleTextAttributes)
    }

    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        self.init(
            background: try reader.choice("background", Background.self) ?? .default,
            backgroundColor: try reader.decode("backgroundColor", BarColor.decode),
            backgroundImage: try reader.decode("backgroundImage", as: BarImage.self),
            shadowColor: try reader.decode("shadowColor", BarColor.decode),
            shadowImage: try reader.decode("shadowImage", as: BarImage.self),
            titleTextAttributes: try reader.decode("titleTextAttributes", as: TextAttributes.self),
            largeTitleTextAttributes: try reader.decode("largeTitleTextAttributes", as: TextAttributes.self))
        try reader.finish()
    }

    public var json: JSONValue {
        .object([
            "background": .string(background.rawValue),
            "backgroundColor": jsonOrNull(backgroundColor, \.json),
            "backgroundImage": jsonOrNull(backgroundImage, \.json),
            "shadowColor": jsonOrNull(shadowColor, \.json),
            "shadowImage": jsonOrNull(shadowImage, \.json),
            "titleTextAttributes": jsonOrNull(titleTextAttributes, \.json),
            "largeTitleTextAttributes": jsonOrNull(largeTitleTextAttributes, \.json),
        ])
    }

    func validate(at path: String) throws(NavigationDecodingError) {
        try backgroundImage?.validate(at: JSONPointer.appending("backgroundImage", to: path))
        try shadowImage?.validate(at: JSONPointer.appending("shadowImage", to: path))
        try titleTextAttributes?.validate(at: JSONPointer.appending("titleTextAttributes", to: path))
        try largeTitleTextAttributes?.validate(at: JSONPointer.appending("largeTitleTextAttributes", to: path))
    }
}
