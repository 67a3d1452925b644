extension NavigationBarState {
    /// Which rule decided the back button: one of the ways it shows, or why it does not.
    public enum BackButtonRule: String, Sendable, CaseIterable {
        /// The back item's `backBarButtonItem` (B-3 (2), B-4: it beats `backButtonTitle`).
        case backBarButtonItem
        /// The back item's `backButtonTitle` (B-3 (3), B-5 default mode).
        case backButtonTitle
        /// The back item's `title` (B-3 (3)).
        case previousTitle
        /// "Back": nothing else to title it with, or the back item's mode is `generic` (B-3 (4), B-5).
        case genericTitle
        /// The back indicator alone: the back item's mode is `minimal` (B-5).
        case minimal
        /// Hidden by the top item's `hidesBackButton` (B-6).
        case hidesBackButton
        /// Replaced by the top item's left items (B-3 (1); seed 002's `nearby` item, B-11).
        case replacedByLeftItems
        /// One screen: there is nothing to go back to (B-3).
        case noneAtRoot

        /// Whether the rule shows a back button.
        public var showsButton: Bool {
            switch self {
            case .backBarButtonItem, .backButtonTitle, .previousTitle, .genericTitle, .minimal: true
            case .hidesBackButton, .replacedByLeftItems, .noneAtRoot: false
            }
        }
    }

    /// The back button as drawn.
    public struct BackButton: Sendable, Hashable {
        public let rule: BackButtonRule
        /// Where a tap goes: the back item (`popViewController`).
        public let target: ScreenID
        /// The title beside the indicator; `nil`: the indicator alone.
        public let title: String?
        /// The titles UIKit falls back to, in order, when ``title`` does not fit (B-5 default
        /// mode: `backButtonTitle`, `title`, "Back"); after them, the indicator alone.
        public let fallbackTitles: [String]
        /// The image of a `backBarButtonItem`.
        public let image: String?
        /// The back item's display mode (B-5); it does not apply to a `backBarButtonItem`.
        public let displayMode: NavigationItem.BackButtonDisplayMode
        /// The `backBarButtonItem` has a custom view, which the back button does not show (B-4).
        public let ignoresCustomView: Bool
    }

    /// The left side: the back button, and the top item's left items (left to right after it).
    public struct LeftSide: Sendable, Hashable {
        public let backButtonRule: BackButtonRule
        public let backButton: BackButton?
        /// The top item's left items, left to right (`leftBarButtonItems[0]` is leftmost).
        public let items: [BarButtonItem]
        /// The items sit to the right of a shown back button (`leftItemsSupplementBackButton`).
        public let supplementsBackButton: Bool

        /// B-3..B-6 in order: no back item (root); hidden by the top item; replaced by its left
        /// items unless they supplement it; else titled from the back item.
        init(resolving stack: NavigationStack) {
            let top = stack.top.navigationItem
            items = top.leftBarButtonItems
            if let back = stack.back, !top.hidesBackButton, top.leftBarButtonItems.isEmpty || top.leftItemsSupplementBackButton {
                let button = Self.backButton(returningTo: back)
                backButton = button
                backButtonRule = button.rule
            } else {
                backButton = nil
                backButtonRule = stack.back == nil ? .noneAtRoot : top.hidesBackButton ? .hidesBackButton : .replacedByLeftItems
            }
            supplementsBackButton = backButton != nil && !items.isEmpty
        }

        /// The back button titled from the back item: its `backBarButtonItem` (B-4), else by its
        /// display mode (B-5). An empty `backButtonTitle` is honoured (the indicator alone, the
        /// usual trick); an empty `title` counts as none.
        static func backButton(returningTo back: Screen) -> BackButton {
            let item = back.navigationItem
            let mode = item.backButtonDisplayMode
            if let custom = item.backBarButtonItem {
                return BackButton(rule: .backBarButtonItem, target: back.id, title: custom.title, fallbackTitles: [],
                                  image: custom.image, displayMode: mode, ignoresCustomView: custom.customView != nil)
            }
            func button(_ rule: BackButtonRule, _ title: String?, _ fallbacks: [String] = []) -> BackButton {
                BackButton(rule: rule, target: back.id, title: title, fallbackTitles: fallbacks, image: nil,
                           displayMode: mode, ignoresCustomView: false)
            }
            switch mode {
            case .minimal:
                return button(.minimal, nil)
            case .generic:
                return button(.genericTitle, NavigationBarState.genericBackTitle)
            case .default:
                let previous = item.title?.isEmpty == false ? item.title : nil
                if let explicit = item.backButtonTitle {
                    if explicit.isEmpty { return button(.backButtonTitle, nil) }
                    return button(.backButtonTitle, explicit, distinct([previous, NavigationBarState.genericBackTitle], from: explicit))
                }
                if let previous {
                    return button(.previousTitle, previous, distinct([NavigationBarState.genericBackTitle], from: previous))
                }
                return button(.genericTitle, NavigationBarState.genericBackTitle)
            }
        }

        private static func distinct(_ candidates: [String?], from chosen: String) -> [String] {
            var result: [String] = []
            for case let candidate? in candidates where candidate != chosen && !result.contains(candidate) {
                result.append(candidate)
            }
            return result
        }
    }
}
