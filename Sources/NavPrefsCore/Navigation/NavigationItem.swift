/// What a screen asks the navigation bar to show while it is on top, and what its back button
/// looks like on the screen above it (`UINavigationItem`). Each screen has its own; changing
/// one affects only that screen (seed 002).
public struct NavigationItem: Sendable, Hashable, StrictJSONDecodable {
    /// `UINavigationItem.BackButtonDisplayMode` (B-5); read from the item the back button
    /// returns to, like ``NavigationItem/backButtonTitle``.
    public enum BackButtonDisplayMode: String, Sendable, CaseIterable {
        /// `backButtonTitle`, else `title`, else "Back", else no title, as space allows.
        case `default`
        /// "Back", else no title; ignores `title` and `backButtonTitle`.
        case generic
        /// The back indicator (chevron) alone.
        case minimal
    }

    /// `UINavigationItem.LargeTitleDisplayMode` (B-10).
    public enum LargeTitleDisplayMode: String, Sendable, CaseIterable {
        /// Whatever the item below shows.
        case automatic
        case always
        case never
    }

    public var title: String?
    /// The name of a view the client draws in the middle of the bar; it wins over ``title`` (B-1).
    public var titleView: String?
    /// Left to right; `leftBarButtonItem` is the first.
    public var leftBarButtonItems: [BarButtonItem]
    /// Right to left: the first is the rightmost (B-2); `rightBarButtonItem` is the first.
    public var rightBarButtonItems: [BarButtonItem]
    /// The back button the screen above shows to return here (B-3, B-4).
    public var backBarButtonItem: BarButtonItem?
    /// The back button title the screen above shows to return here (B-3, B-5).
    public var backButtonTitle: String?
    public var backButtonDisplayMode: BackButtonDisplayMode
    /// Hides the back button while this item is on top (B-6).
    public var hidesBackButton: Bool
    /// Shows the left items beside the back button instead of in its place (B-3).
    public var leftItemsSupplementBackButton: Bool
    public var largeTitleDisplayMode: LargeTitleDisplayMode
    /// Appearance layers that override the bar's while this item is on top (B-7, B-8).
    public var standardAppearance: NavigationBarAppearance?
    public var scrollEdgeAppearance: NavigationBarAppearance?
    public var compactAppearance: NavigationBarAppearance?
    public var compactScrollEdgeAppearance: NavigationBarAppearance?

    public init(title: String? = nil, titleView: String? = nil, leftBarButtonItems: [BarButtonItem] = [],
                rightBarButtonItems: [BarButtonItem] = [], backBarButtonItem: BarButtonItem? = nil,
                backButtonTitle: String? = nil, backButtonDisplayMode: BackButtonDisplayMode = .default,
                hidesBackButton: Bool = false, leftItemsSupplementBackButton: Bool = false,
                largeTitleDisplayMode: LargeTitleDisplayMode = .automatic,
                standardAppearance: NavigationBarAppearance? = nil, scrollEdgeAppearance: NavigationBarAppearance? = nil,
                compactAppearance: NavigationBarAppearance? = nil, compactScrollEdgeAppearance: NavigationBarAppearance? = nil) {
        self.title = title
        self.titleView = titleView
        self.leftBarButtonItems = leftBarButtonItems
        self.rightBarButtonItems = rightBarButtonItems
        self.backBarButtonItem = backBarButtonItem
        self.backButtonTitle = backButtonTitle
        self.backButtonDisplayMode = backButtonDisplayMode
        self.hidesBackButton = hidesBackButton
        self.leftItemsSupplementBackButton = leftItemsSupplementBackButton
        self.largeTitleDisplayMode = largeTitleDisplayMode
        self.standardAppearance = standardAppearance
        self.scrollEdgeAppearance = scrollEdgeAppearance
        self.compactAppearance = compactAppearance
        self.compactScrollEdgeAppearance = compactScrollEdgeAppearance
    }

    /// `leftBarButtonItem`: the first left item; setting it replaces them all, as in UIKit.
    public var leftBarButtonItem: BarButtonItem? {
        get { leftBarButtonItems.first }
        set { leftBarButtonItems = newValue.map { [$0] } ?? [] }
    }

    /// `rightBarButtonItem`: the first, rightmost, right item (B-2).
    public var rightBarButtonItem: BarButtonItem? {
        get { rightBarButtonItems.first }
        set { rightBarButtonItems = newValue.map { [$0] } ?? [] }
    }

    /// Members use UIKit's property names. `leftBarButtonItem` / `rightBarButtonItem` are
    /// accepted for a single item, but not beside their plural (which one would win?).
    /// Responses always use the plurals.
    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        let left = try Self.items(&reader, plural: "leftBarButtonItems", singular: "leftBarButtonItem")
        let right = try Self.items(&reader, plural: "rightBarButtonItems", singular: "rightBarButtonItem")
        self.init(
            title: try reader.string("title"),
            titleView: try reader.string("titleView"),
            leftBarButtonItems: left,
            rightBarButtonItems: right,
            backBarButtonItem: try reader.decode("backBarButtonItem", as: BarButtonItem.self),
            backButtonTitle: try reader.string("backButtonTitle"),
            backButtonDisplayMode: try reader.choice("backButtonDisplayMode", BackButtonDisplayMode.self) ?? .default,
            hidesBackButton: try reader.bool("hidesBackButton") ?? false,
            leftItemsSupplementBackButton: try reader.bool("leftItemsSupplementBackButton") ?? false,
            largeTitleDisplayMode: try reader.choice("largeTitleDisplayMode", LargeTitleDisplayMode.self) ?? .automatic,
            standardAppearance: try reader.decode("standardAppearance", as: NavigationBarAppearance.self),
            scrollEdgeAppearance: try reader.decode("scrollEdgeAppearance", as: NavigationBarAppearance.self),
            compactAppearance: try reader.decode("compactAppearance", as: NavigationBarAppearance.self),
            compactScrollEdgeAppearance: try reader.decode("compactScrollEdgeAppearance", as: NavigationBarAppearance.self))
        try reader.finish()
        try validate(at: path)
    }

    private static func items(_ reader: inout MemberReader, plural: String, singular: String) throws(NavigationDecodingError) -> [BarButtonItem] {
        if reader.has(plural), reader.has(singular) {
            throw NavigationDecodingError(path: reader.pointer(singular), problem: .conflicts(with: plural))
        }
        if let one = try reader.decode(singular, as: BarButtonItem.self) { _ = reader.value(plural); return [one] }
        return try reader.decodeArray(plural, of: BarButtonItem.self) ?? []
    }

    public var json: JSONValue {
        .object([
            "title": jsonString(title),
            "titleView": jsonString(titleView),
            "leftBarButtonItems": .array(leftBarButtonItems.map(\.json)),
            "rightBarButtonItems": .array(rightBarButtonItems.map(\.json)),
            "backBarButtonItem": jsonOrNull(backBarButtonItem, \.json),
            "backButtonTitle": jsonString(backButtonTitle),
            "backButtonDisplayMode": .string(backButtonDisplayMode.rawValue),
            "hidesBackButton": .bool(hidesBackButton),
            "leftItemsSupplementBackButton": .bool(leftItemsSupplementBackButton),
            "largeTitleDisplayMode": .string(largeTitleDisplayMode.rawValue),
            "standardAppearance": jsonOrNull(standardAppearance, \.json),
            "scrollEdgeAppearance": jsonOrNull(scrollEdgeAppearance, \.json),
            "compactAppearance": jsonOrNull(compactAppearance, \.json),
            "compactScrollEdgeAppearance": jsonOrNull(compactScrollEdgeAppearance, \.json),
        ])
    }

    /// Checks ``NavigationLimits`` (texts, items per side) and the items' shape rules.
    /// - Parameter path: where the item sits in the body, for the error's pointer.
    public func validate(at path: String = "") throws(NavigationDecodingError) {
        try Limit.text(title, at: JSONPointer.appending("title", to: path))
        try Limit.text(titleView, at: JSONPointer.appending("titleView", to: path))
        try Limit.text(backButtonTitle, at: JSONPointer.appending("backButtonTitle", to: path))
        for (key, items) in [("leftBarButtonItems", leftBarButtonItems), ("rightBarButtonItems", rightBarButtonItems)] {
            let itemsPath = JSONPointer.appending(key, to: path)
            try Limit.count(items.count, limit: NavigationLimits.maxBarButtonItemsPerSide, at: itemsPath)
            for (index, item) in items.enumerated() {
                try item.validate(at: JSONPointer.appending(index, to: itemsPath))
            }
        }
        try backBarButtonItem?.validate(at: JSONPointer.appending("backBarButtonItem", to: path))
        try standardAppearance?.validate(at: JSONPointer.appending("standardAppearance", to: path))
        try scrollEdgeAppearance?.validate(at: JSONPointer.appending("scrollEdgeAppearance", to: path))
        try compactAppearance?.validate(at: JSONPointer.appending("compactAppearance", to: path))
        try compactScrollEdgeAppearance?.validate(at: JSONPointer.appending("compactScrollEdgeAppearance", to: path))
    }
}
