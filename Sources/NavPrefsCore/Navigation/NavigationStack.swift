/// A navigation controller's `viewControllers`: screens bottom to top, never empty, each id
/// once, at most ``NavigationLimits/maxStackDepth`` deep (semantics S-1..S-12).
///
/// A value: every operation returns a ``NavigationTransition`` holding the new stack (and the
/// old), and throws ``NavigationError`` leaving the receiver as it was. The `mutating` twins
/// (`push`, `pop`, ...) apply the same rules in place.
public struct NavigationStack: Sendable, Hashable {
    /// Bottom to top: `screens[0]` is the root, the last is the top (S-1).
    public private(set) var screens: [Screen]

    /// A new session's stack: exactly the root (S-1).
    public init(root: Screen) {
        screens = [root]
    }

    /// A stack of `screens` as given, if they make one: at least one (S-12), distinct ids (S-10),
    /// within the depth limit.
    public init(screens: [Screen]) throws(NavigationError) {
        try Self.check(screens)
        self.screens = screens
    }

    // MARK: Reading

    public var count: Int { screens.count }
    /// `viewControllers[0]`.
    public var root: Screen { screens[0] }
    /// `topViewController`: the last screen (S-1).
    public var top: Screen { screens[screens.count - 1] }
    /// The screen below the top (`viewControllers[n-2]`), whose item titles the back button;
    /// `nil` at the root (S-1).
    public var back: Screen? { screens.count > 1 ? screens[screens.count - 2] : nil }
    /// Ids bottom to top.
    public var ids: [ScreenID] { screens.map(\.id) }

    public func index(of id: ScreenID) -> Int? { screens.firstIndex { $0.id == id } }
    public func contains(_ id: ScreenID) -> Bool { index(of: id) != nil }
    public subscript(id: ScreenID) -> Screen? { index(of: id).map { screens[$0] } }

    // MARK: Operations

    /// `pushViewController(_:animated:)`: `screen` becomes the top (S-2).
    /// - Throws: ``NavigationError/alreadyOnStack(_:)`` if its id is on the stack, top or deeper
    ///   (S-3, UIKit raises); ``NavigationError/stackFull(limit:)`` at the depth limit.
    public func pushing(_ screen: Screen, animated: Bool = true) throws(NavigationError) -> NavigationTransition {
        guard !contains(screen.id) else { throw .alreadyOnStack(screen.id) }
        guard count < NavigationLimits.maxStackDepth else { throw .stackFull(limit: NavigationLimits.maxStackDepth) }
        return NavigationTransition(action: .push, operation: .push, before: self,
                                    after: NavigationStack(unchecked: screens + [screen]), removed: [], animated: animated)
    }

    /// `popViewController(animated:)`: removes the top, the screen below becomes the top (S-5).
    /// At the root nothing is removed and nothing is shown (S-4): `popped` is `nil`, operation
    /// `none`, no event; not an error.
    public func popping(animated: Bool = true) -> NavigationTransition {
        guard count > 1 else { return unchanged(.pop, animated: animated) }
        return NavigationTransition(action: .pop, operation: .pop, before: self,
                                    after: NavigationStack(unchecked: Array(screens.dropLast())), removed: [top], animated: animated)
    }

    /// `popToRootViewController(animated:)`: keeps only the root and removes the rest, bottom
    /// to top; at the root nothing is removed (S-9).
    public func poppingToRoot(animated: Bool = true) -> NavigationTransition {
        popping(toIndex: 0, action: .popToRoot, animated: animated)
    }

    /// `popToViewController(_:animated:)`: removes every screen above `id` (returned bottom to
    /// top) and makes it the top (S-6). When `id` is the top, nothing is removed and nothing is
    /// shown (S-7).
    /// - Throws: ``NavigationError/notOnStack(_:)`` when `id` is not on the stack (S-8).
    public func popping(to id: ScreenID, animated: Bool = true) throws(NavigationError) -> NavigationTransition {
        guard let index = index(of: id) else { throw .notOnStack(id) }
        return popping(toIndex: index, action: .popTo, animated: animated)
    }

    /// `setViewControllers(_:animated:)`: replaces the whole stack (S-10). Reported as a push
    /// when the new top was not on the stack before, as a pop when it was (S-11); when the top
    /// stays the same screen nothing is shown (operation `none`), though the stack may change.
    /// `removed` lists the screens left out, bottom to top.
    /// - Throws: ``NavigationError/emptyStack`` (S-12), ``NavigationError/duplicateScreens(_:)``
    ///   (S-10), ``NavigationError/stackFull(limit:)``.
    public func settingScreens(_ newScreens: [Screen], animated: Bool = true) throws(NavigationError) -> NavigationTransition {
        let after = try NavigationStack(screens: newScreens)
        let kept = Set(after.ids)
        let operation: NavigationTransition.Operation =
            after.top.id == top.id ? .none : contains(after.top.id) ? .pop : .push
        return NavigationTransition(action: .setStack, operation: operation, before: self, after: after,
                                    removed: screens.filter { !kept.contains($0.id) }, animated: animated)
    }

    /// The stack with the screen whose id is `screen.id` replaced by `screen` (its navigation
    /// item, custom bar and gestures edited in place; nothing is shown or removed).
    /// - Throws: ``NavigationError/screenNotFound(_:)`` if no screen has that id.
    public func replacing(_ screen: Screen) throws(NavigationError) -> NavigationStack {
        guard let index = index(of: screen.id) else { throw .screenNotFound(screen.id) }
        var copy = self
        copy.screens[index] = screen
        return copy
    }

    /// The stack with the navigation item of screen `id` replaced by `item`.
    /// - Throws: ``NavigationError/screenNotFound(_:)`` if no screen has that id.
    public func updatingItem(of id: ScreenID, to item: NavigationItem) throws(NavigationError) -> NavigationStack {
        guard var screen = self[id] else { throw .screenNotFound(id) }
        screen.navigationItem = item
        return try replacing(screen)
    }

    // MARK: Mutating twins

    @discardableResult
    public mutating func push(_ screen: Screen, animated: Bool = true) throws(NavigationError) -> NavigationTransition {
        try apply(pushing(screen, animated: animated))
    }

    @discardableResult
    public mutating func pop(animated: Bool = true) -> NavigationTransition {
        apply(popping(animated: animated))
    }

    @discardableResult
    public mutating func popToRoot(animated: Bool = true) -> NavigationTransition {
        apply(poppingToRoot(animated: animated))
    }

    @discardableResult
    public mutating func pop(to id: ScreenID, animated: Bool = true) throws(NavigationError) -> NavigationTransition {
        try apply(popping(to: id, animated: animated))
    }

    @discardableResult
    public mutating func setScreens(_ newScreens: [Screen], animated: Bool = true) throws(NavigationError) -> NavigationTransition {
        try apply(settingScreens(newScreens, animated: animated))
    }

    // MARK: JSON

    /// `{"count": 2, "root": "home", "top": "detail", "back": "home", "screens": [...]}`.
    public var json: JSONValue {
        .object([
            "count": .integer(Int64(count)),
            "root": .string(root.id.rawValue),
            "top": .string(top.id.rawValue),
            "back": jsonOrNull(back) { .string($0.id.rawValue) },
            "screens": .array(screens.map(\.json)),
        ])
    }

    /// The screens of a stack as a client sends them (a JSON array, e.g. the body of a stack
    /// replacement), each decoded strictly at `/index`. Stack rules (S-10, S-12) are checked
    /// by ``init(screens:)`` or ``settingScreens(_:animated:)``, not here.
    public static func screens(json: JSONValue, at path: String = "") throws(NavigationDecodingError) -> [Screen] {
        guard case .array(let elements) = json else {
            throw NavigationDecodingError(path: path, problem: .wrongType(expected: "an array", found: json.typeName))
        }
        try Limit.count(elements.count, limit: NavigationLimits.maxStackDepth, at: path)
        var screens: [Screen] = []
        for (index, element) in elements.enumerated() {
            screens.append(try Screen(json: element, at: JSONPointer.appending(index, to: path)))
        }
        return screens
    }

    // MARK: Internals

    init(unchecked screens: [Screen]) {
        self.screens = screens
    }

    static func check(_ screens: [Screen]) throws(NavigationError) {
        guard !screens.isEmpty else { throw .emptyStack }
        var seen: Set<ScreenID> = []
        var repeated: [ScreenID] = []
        for screen in screens where !seen.insert(screen.id).inserted && !repeated.contains(screen.id) {
            repeated.append(screen.id)
        }
        guard repeated.isEmpty else { throw .duplicateScreens(repeated) }
        guard screens.count <= NavigationLimits.maxStackDepth else { throw .stackFull(limit: NavigationLimits.maxStackDepth) }
    }

    private func popping(toIndex index: Int, action: NavigationTransition.Action, animated: Bool) -> NavigationTransition {
        guard index < count - 1 else { return unchanged(action, animated: animated) }
        return NavigationTransition(action: action, operation: .pop, before: self,
                                    after: NavigationStack(unchecked: Array(screens[...index])),
                                    removed: Array(screens[(index + 1)...]), animated: animated)
    }

    private func unchanged(_ action: NavigationTransition.Action, animated: Bool) -> NavigationTransition {
        NavigationTransition(action: action, operation: .none, before: self, after: self, removed: [], animated: animated)
    }

    private mutating func apply(_ transition: NavigationTransition) -> NavigationTransition {
        self = transition.after
        return transition
    }
}
