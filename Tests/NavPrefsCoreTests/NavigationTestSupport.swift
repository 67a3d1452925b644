import NavPrefsCore
import NavPrefsJSON

/// Builders for navigation tests. Ids are literals written by the tests, so `try!` cannot fail.
enum Nav {
    static func id(_ text: String) -> ScreenID { try! ScreenID(text) }

    static func screen(_ name: String, title: String? = nil, item: NavigationItem? = nil, customBar: CustomBar? = nil,
                       gestures: GestureSettings? = nil) -> Screen {
        var navigationItem = item ?? NavigationItem()
        if let title { navigationItem.title = title }
        return Screen(id: id(name), navigationItem: navigationItem, customBar: customBar, gestures: gestures)
    }

    /// A stack of plain screens named `names`, bottom to top.
    static func stack(_ names: [String]) -> NavigationStack {
        try! NavigationStack(screens: names.map { screen($0) })
    }

    static func stack(_ screens: [Screen]) -> NavigationStack { try! NavigationStack(screens: screens) }

    /// A session whose stack is `screens`, bottom to top.
    static func session(_ screens: [Screen], appearance: BarAppearance = .systemDefault,
                        options: NavigationOptions = NavigationOptions()) -> NavigationSession {
        try! NavigationSession(stack: stack(screens), appearance: appearance, options: options, presented: nil)
    }

    static func session(_ names: [String], options: NavigationOptions = NavigationOptions()) -> NavigationSession {
        session(names.map { screen($0) }, options: options)
    }

    static let xz = NavigationOptions(backGesture: .xzNavigationPan)

    /// A left-to-right pan in a 400 pt wide view.
    static func pan(startX: Double = 5, dx: Double = 0, dy: Double = 0, vx: Double = 0, width: Double = 400,
                    direction: PanGesture.LayoutDirection = .leftToRight) -> PanGesture {
        try! PanGesture(start: .init(x: startX, y: 300), translation: .init(x: dx, y: dy), velocity: .init(x: vx, y: 0),
                        width: width, layoutDirection: direction)
    }

    static func item(_ title: String) -> BarButtonItem { BarButtonItem(title: title) }

    static func parse(_ text: String) -> JSONValue { try! JSONValue.parse(text) }
}

extension JSONValue {
    /// The member at `keys` (nested objects), `nil` when absent.
    func member(_ keys: String...) -> JSONValue? {
        var value: JSONValue? = self
        for key in keys {
            guard case .object(let object)? = value else { return nil }
            value = object[key]
        }
        return value
    }
}
