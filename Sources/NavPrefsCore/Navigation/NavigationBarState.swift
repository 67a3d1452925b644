/// What a session's navigation bar shows right now, resolved from the stack and the bar's
/// appearance by the seed's and UIKit's precedence rules (B-1..B-11, G-11): semantics "beyond"
/// item 1, which UIKit and XZ only compute on the device.
///
/// Every choice names the rule that made it (``LeftSide/backButtonRule``,
/// ``Appearance/translucency``, ``LargeTitle/rule``, layer sources), so a client can tell why.
public struct NavigationBarState: Sendable, Hashable {
    /// The screen whose item the bar shows (`topItem`).
    public let top: ScreenID
    /// The screen the back button returns to (`backItem`), `nil` at the root.
    public let back: ScreenID?
    /// The top screen's custom bar is on screen in place of the native bar's look (XZ, G-11).
    public let usesCustomBar: Bool
    /// The bar is hidden (`isNavigationBarHidden`); what it would show is still resolved.
    public let isHidden: Bool
    public let title: Title
    public let left: LeftSide
    public let right: RightSide
    public let appearance: Appearance
    public let largeTitle: LargeTitle

    /// The generic back button title UIKit uses (B-3 (4), B-5), in English.
    public static let genericBackTitle = "Back"

    /// Resolves the bar of `stack` under `appearance`. With `isCustomizable` (an XZ session) the
    /// top's custom bar, if it has one, decides translucency, large titles and hiding (G-11).
    public init(stack: NavigationStack, appearance: BarAppearance, isCustomizable: Bool = false) {
        let top = stack.top
        let custom = isCustomizable ? top.customBar : nil
        self.top = top.id
        back = stack.back?.id
        usesCustomBar = custom != nil
        isHidden = custom?.isHidden ?? appearance.isHidden
        title = Title(resolving: top.navigationItem)
        left = LeftSide(resolving: stack)
        right = RightSide(items: top.navigationItem.rightBarButtonItems)
        self.appearance = Appearance(resolving: appearance, item: top.navigationItem, customBar: custom)
        largeTitle = LargeTitle(resolving: stack, prefersLargeTitles: self.appearance.prefersLargeTitles)
    }
}

extension NavigationBarState {
    /// The middle of the bar (B-1): the title view if the top item has one (even with a title),
    /// else its title, else nothing.
    public struct Title: Sendable, Hashable {
        public enum Source: String, Sendable, CaseIterable {
            case titleView, title, none
        }

        public let source: Source
        /// The title shown (``Source/title``), or the item's title behind a title view.
        public let text: String?
        public let titleView: String?

        /// An empty title shows nothing, so it counts as none (seed 002: "以上都未设置, 则展示空白").
        init(resolving item: NavigationItem) {
            let text = item.title?.isEmpty == false ? item.title : nil
            self.text = text
            titleView = item.titleView
            source = item.titleView != nil ? .titleView : text != nil ? .title : .none
        }
    }

    /// The right side (B-2): the top item's right items only.
    public struct RightSide: Sendable, Hashable {
        /// UIKit's order: the first is the rightmost.
        public let items: [BarButtonItem]

        /// The order on screen, left to right: ``items`` reversed.
        public var itemsLeftToRight: [BarButtonItem] { items.reversed() }
    }
}
