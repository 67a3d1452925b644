import Foundation

/// A screen to push, present or put on a stack: its id (unique in its session) and its
/// navigation item, as the API takes them (every member optional).
public struct NavigationScreen: Sendable, Hashable {
    public var id: String
    /// The navigation item: `title`, `backButtonTitle`, `rightBarButtonItems`... as JSON
    /// (`nil`: an empty item). ``init(id:title:)`` fills in a title.
    public var navigationItem: JSON?
    /// Other members of the API's screen (`customBar`, `gestures`), as JSON.
    public var extra: [JSON.Member]

    public init(id: String, navigationItem: JSON? = nil, extra: [JSON.Member] = []) {
        self.id = id
        self.navigationItem = navigationItem
        self.extra = extra
    }

    /// A screen whose navigation item has only a title.
    public init(id: String, title: String) {
        self.init(id: id, navigationItem: .object([.init("title", .string(title))]))
    }

    var json: JSON {
        var members = [JSON.Member("id", .string(id))]
        if let navigationItem { members.append(.init("navigationItem", navigationItem)) }
        return .object(members + extra)
    }
}

/// One pan over a session's screen, for gesture evaluation: where it started, how far it
/// moved, how fast it was released, and the view's width (points).
public struct PanGesture: Sendable, Hashable {
    public var start: (x: Double, y: Double)
    public var translation: (x: Double, y: Double)
    public var velocity: (x: Double, y: Double)
    public var width: Double

    public init(start: (x: Double, y: Double), translation: (x: Double, y: Double), velocity: (x: Double, y: Double), width: Double) {
        self.start = start
        self.translation = translation
        self.velocity = velocity
        self.width = width
    }

    public static func == (lhs: PanGesture, rhs: PanGesture) -> Bool { lhs.json == rhs.json }
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }

    var json: JSON {
        func point(_ point: (x: Double, y: Double)) -> JSON { .object([.init("x", .number(point.x)), .init("y", .number(point.y))]) }
        return .object([.init("start", point(start)), .init("translation", point(translation)), .init("velocity", point(velocity)),
                        .init("width", .number(width))])
    }
}

/// A session of the profile, as its list shows it.
public struct SessionInfo: Sendable, Hashable {
    public let id: String
    public let label: String?
    public let version: Int64
    /// Screens on the stack.
    public let depth: Int
    public let root: String
    public let top: String
    /// When it was made and last changed (RFC 3339), as the server's list says; `nil` for a
    /// session the mirror knows only from its `create` event.
    public let createdAt: String?
    public let updatedAt: String?
}
