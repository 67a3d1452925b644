/// One navigation session of a profile: a stack of screens, the bar they share, the kind of
/// controller it imitates, and a screen presented modally over it, if any.
///
/// Operations are `mutating`: the session carries several parts that one operation may change
/// together (seed 002's push edits the pushed screen, B-11; an XZ transition writes the new top's
/// custom bar into the shared bar, G-11). Each either succeeds completely or throws and leaves
/// the session as it was, so a store copies, mutates, and saves on success.
public struct NavigationSession: Sendable, Hashable {
    public private(set) var stack: NavigationStack
    public private(set) var appearance: BarAppearance
    public private(set) var options: NavigationOptions
    /// The screen presented modally over the stack (`presentedViewController`), if any.
    public private(set) var presented: Screen?

    /// A new session: exactly the root (S-1).
    public init(root: Screen, appearance: BarAppearance = .systemDefault, options: NavigationOptions = NavigationOptions()) {
        stack = NavigationStack(root: root)
        self.appearance = appearance
        self.options = options
        presented = nil
        adoptCustomBarOfTop()
    }

    /// A session as stored (see ``init(json:at:)``); the presented screen's id must not be on
    /// the stack.
    public init(stack: NavigationStack, appearance: BarAppearance, options: NavigationOptions, presented: Screen?) throws(NavigationError) {
        if let presented, stack.contains(presented.id) { throw .presentingScreenOnStack(presented.id) }
        self.stack = stack
        self.appearance = appearance
        self.options = options
        self.presented = presented
    }

    /// `visibleViewController`: the presented screen if any, else the top (S-14).
    public var visible: Screen { presented ?? stack.top }

    /// What the bar shows now (B-1..B-11, G-11).
    public var bar: NavigationBarState {
        NavigationBarState(stack: stack, appearance: appearance, isCustomizable: options.isCustomizable)
    }

    // MARK: Stack operations (S-2..S-12), as the session's controller performs them

    /// Pushes `screen` (S-2, S-3); with ``NavigationOptions/seedCustomBackItem`` it is pushed
    /// with seed 002's `nearby` back item in place of its left items (B-11: the push always
    /// leaves more than one screen, so the root never gets one).
    @discardableResult
    public mutating func push(_ screen: Screen, animated: Bool = true) throws(NavigationError) -> NavigationTransition {
        if let presented, presented.id == screen.id { throw .screenIsPresented(screen.id) }
        let pushed = options.seedCustomBackItem ? screen.withSeedBackItem : screen
        return apply(try stack.pushing(pushed, animated: animated))
    }

    /// Pops the top; at the root nothing happens and `popped` is `nil` (S-4, S-5).
    @discardableResult
    public mutating func pop(animated: Bool = true) -> NavigationTransition {
        apply(stack.popping(animated: animated))
    }

    /// Pops to the root (S-9).
    @discardableResult
    public mutating func popToRoot(animated: Bool = true) -> NavigationTransition {
        apply(stack.poppingToRoot(animated: animated))
    }

    /// Pops to screen `id` (S-6..S-8).
    @discardableResult
    public mutating func pop(to id: ScreenID, animated: Bool = true) throws(NavigationError) -> NavigationTransition {
        apply(try stack.popping(to: id, animated: animated))
    }

    /// Replaces the stack (S-10..S-12). Seed 002 overrides only `pushViewController`, so no
    /// back item is added here, even when the new top is new.
    @discardableResult
    public mutating func setScreens(_ screens: [Screen], animated: Bool = true) throws(NavigationError) -> NavigationTransition {
        if let presented, screens.contains(where: { $0.id == presented.id }) { throw .screenIsPresented(presented.id) }
        return apply(try stack.settingScreens(screens, animated: animated))
    }

    // MARK: Editing in place

    /// Replaces the screen with `screen.id`, on the stack or presented, as it is (no transition).
    /// In a customizable session, editing the top's custom bar takes effect on the bar at once
    /// (XZ binds the top's custom bar to the native bar after `viewDidAppear`, G-11).
    /// - Throws: ``NavigationError/screenNotFound(_:)``.
    public mutating func replaceScreen(_ screen: Screen) throws(NavigationError) {
        if let presented, presented.id == screen.id {
            self.presented = screen
            return
        }
        stack = try stack.replacing(screen)
        if screen.id == stack.top.id { adoptCustomBarOfTop() }
    }

    /// Replaces the navigation item of screen `id`, on the stack or presented.
    /// - Throws: ``NavigationError/screenNotFound(_:)``.
    public mutating func updateItem(of id: ScreenID, to item: NavigationItem) throws(NavigationError) {
        guard var screen = presented?.id == id ? presented : stack[id] else { throw .screenNotFound(id) }
        screen.navigationItem = item
        try replaceScreen(screen)
    }

    /// Replaces the bar's appearance (B-7: every screen sees it). In a customizable session
    /// whose top has a custom bar, that bar is bound to the native one (G-11), so it takes the
    /// new translucency, large-title preference and hidden state too.
    public mutating func setAppearance(_ newAppearance: BarAppearance) {
        appearance = newAppearance
        guard options.isCustomizable, stack.top.customBar != nil else { return }
        var top = stack.top
        top.customBar = CustomBar(isTranslucent: newAppearance.effectiveIsTranslucent,
                                  prefersLargeTitles: newAppearance.prefersLargeTitles, isHidden: newAppearance.isHidden)
        stack = NavigationStack(unchecked: stack.screens.dropLast() + [top])
    }

    /// Changes the kind of controller. Turning XZ customization on applies the top's custom bar
    /// at once, as `isCustomizable = true` does (G-10, G-11).
    public mutating func setOptions(_ newOptions: NavigationOptions) {
        options = newOptions
        adoptCustomBarOfTop()
    }

    // MARK: Presentation (S-14)

    /// Presents `screen` modally over the stack; it becomes the visible screen (S-14).
    /// - Throws: ``NavigationError/alreadyPresenting(_:)`` while another screen is presented,
    ///   ``NavigationError/presentingScreenOnStack(_:)`` if its id is on the stack.
    public mutating func present(_ screen: Screen) throws(NavigationError) {
        if let presented { throw .alreadyPresenting(presented.id) }
        if stack.contains(screen.id) { throw .presentingScreenOnStack(screen.id) }
        presented = screen
    }

    /// Dismisses the presented screen and returns it; `nil` (and nothing changes) when none is.
    @discardableResult
    public mutating func dismiss() -> Screen? {
        defer { presented = nil }
        return presented
    }

    // MARK: Internals

    mutating func apply(_ transition: NavigationTransition) -> NavigationTransition {
        stack = transition.after
        if transition.isTransition { adoptCustomBarOfTop() }
        return transition
    }

    /// G-11: in a customizable session, the new top's custom bar hands its translucency,
    /// large-title preference and hidden state to the native bar (XZ, in `viewWillAppear`).
    /// They stay there after the screen leaves: the native bar is shared (B-7), and XZ sets it
    /// only from screens that have a custom bar.
    private mutating func adoptCustomBarOfTop() {
        guard options.isCustomizable, let custom = stack.top.customBar else { return }
        appearance.isTranslucent = custom.isTranslucent
        appearance.prefersLargeTitles = custom.prefersLargeTitles
        appearance.isHidden = custom.isHidden
    }
}
