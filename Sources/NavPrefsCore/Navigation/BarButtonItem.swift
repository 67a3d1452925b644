/// A button on the navigation bar (`UIBarButtonItem`): what it shows (a title, an image, a
/// system item or a custom view the client draws) and what tapping it does.
///
/// The service does not render, so images and custom views are names the client resolves.
/// `customView` matters to resolution: a custom view in a `backBarButtonItem` is ignored (B-4).
public struct BarButtonItem: Sendable, Hashable, StrictJSONDecodable {
    /// `UIBarButtonItem.Style` (`bordered` is deprecated and drawn as `plain`).
    public enum Style: String, Sendable, CaseIterable {
        case plain, done
    }

    /// `UIBarButtonItem.SystemItem`, the standard buttons (without the deprecated `pageCurl`).
    public enum SystemItem: String, Sendable, CaseIterable {
        case done, cancel, edit, save, add, flexibleSpace, fixedSpace, compose, reply, action, organize
        case bookmarks, search, refresh, stop, camera, trash, play, pause, rewind, fastForward, undo, redo, close
    }

    public var title: String?
    /// Image name (`UIImage(named:)`); seed 002's back item uses `nearby`.
    public var image: String?
    /// A system item draws its own title or symbol; it cannot be combined with a title or image.
    public var systemItem: SystemItem?
    public var style: Style
    /// The name of a view the client supplies (`UIBarButtonItem(customView:)`); it replaces the
    /// title and image where the item is shown, and is ignored in a back button (B-4).
    public var customView: String?
    public var isEnabled: Bool
    /// What a tap does, for clients to dispatch: free text, except `pop`, which the seed's
    /// custom back item uses for `popViewController(animated: true)` (B-11).
    public var action: String?

    public init(title: String? = nil, image: String? = nil, systemItem: SystemItem? = nil, style: Style = .plain,
                customView: String? = nil, isEnabled: Bool = true, action: String? = nil) {
        self.title = title
        self.image = image
        self.systemItem = systemItem
        self.style = style
        self.customView = customView
        self.isEnabled = isEnabled
        self.action = action
    }

    /// The action name of seed 002's custom back item.
    public static let popAction = "pop"

    /// The item seed 002's custom push puts on every pushed screen (B-11):
    /// `UIBarButtonItem(image: UIImage(named: "nearby"), style: .plain, target: self, action: #selector(back))`,
    /// where `back` pops animated.
    public static let seedBackItem = BarButtonItem(image: "nearby", style: .plain, action: popAction)

    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        self.init(
            title: try reader.string("title"),
            image: try reader.string("image"),
            systemItem: try reader.choice("systemItem", SystemItem.self),
            style: try reader.choice("style", Style.self) ?? .plain,
            customView: try reader.string("customView"),
            isEnabled: try reader.bool("isEnabled") ?? true,
            action: try reader.string("action"))
        try reader.finish()
        try validate(at: path)
    }

    public var json: JSONValue {
        .object([
            "title": jsonString(title),
            "image": jsonString(image),
            "systemItem": jsonOrNull(systemItem) { .string($0.rawValue) },
            "style": .string(style.rawValue),
            "customView": jsonString(customView),
            "isEnabled": .bool(isEnabled),
            "action": jsonString(action),
        ])
    }

    /// Limits on texts, and the shape rules: an item shows something (a title, an image, a system
    /// item or a custom view; an empty title counts, it is the usual way to get a bare chevron),
    /// and a system item stands alone. UIKit accepts an empty item; it would be an invisible
    /// button, which we take for a client mistake.
    func validate(at path: String) throws(NavigationDecodingError) {
        try Limit.text(title, at: JSONPointer.appending("title", to: path))
        try Limit.text(image, at: JSONPointer.appending("image", to: path))
        try Limit.text(customView, at: JSONPointer.appending("customView", to: path))
        try Limit.text(action, at: JSONPointer.appending("action", to: path))
        if systemItem != nil, title != nil || image != nil {
            throw NavigationDecodingError(path: JSONPointer.appending("systemItem", to: path),
                                          problem: .conflicts(with: title != nil ? "title" : "image"))
        }
        if title == nil, image == nil, systemItem == nil, customView == nil {
            throw NavigationDecodingError(
                path: path, problem: .invalidValue("a bar button item needs a title, an image, a systemItem or a customView"))
        }
    }
}
