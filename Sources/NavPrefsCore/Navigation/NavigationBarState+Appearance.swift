extension NavigationBarState {
    /// Where an appearance value came from.
    public enum Source: String, Sendable, CaseIterable {
        /// The top screen's navigation item (B-7: only while it is on top).
        case item
        /// The bar, shared by every screen (B-7).
        case bar
        /// The top screen's custom bar (XZ, G-11).
        case customBar
        /// Fallback: the resolved standard layer (a missing compact layer, B-8).
        case standard
        /// Fallback: the resolved standard layer with a transparent background (a missing
        /// scroll edge layer, B-8).
        case standardWithTransparentBackground
        /// Fallback: the resolved scroll edge layer (a missing compact scroll edge layer, B-8).
        case scrollEdge
        /// B-9: no value set and no fully opaque background image: UIKit's default.
        case systemDefault
        /// B-9: no value set and a fully opaque background image, so not translucent.
        case opaqueBackgroundImage
    }

    /// One resolved appearance layer and where it came from.
    public struct Layer: Sendable, Hashable {
        public let appearance: NavigationBarAppearance
        public let source: Source

        public init(appearance: NavigationBarAppearance, source: Source) {
            self.appearance = appearance
            self.source = source
        }
    }

    /// The bar's effective look: the shared legacy properties (B-7), translucency (B-9), and the
    /// four layers (B-8) with the top item's overrides applied.
    public struct Appearance: Sendable, Hashable {
        public let barStyle: BarAppearance.BarStyle
        public let barTintColor: BarColor?
        /// Whether ``barTintColor`` is drawn translucent (B-9: unless translucency is off);
        /// `nil` without a bar tint color.
        public let barTintIsTranslucent: Bool?
        public let tintColor: BarColor?
        public let titleTextAttributes: TextAttributes?
        public let backgroundImage: BarImage?
        public let shadowImage: BarImage?
        public let isTranslucent: Bool
        public let translucency: Source
        public let prefersLargeTitles: Bool
        public let prefersLargeTitlesSource: Source
        public let standard: Layer
        public let scrollEdge: Layer
        public let compact: Layer
        public let compactScrollEdge: Layer

        /// B-8: item layer over bar layer; a missing scroll edge layer is the standard one with
        /// a transparent background; a missing compact layer is the standard one; a missing
        /// compact scroll edge layer is the scroll edge one. "Standard" there is the resolved
        /// standard layer, the item's when it has one (Apple says the top item's for compact).
        init(resolving bar: BarAppearance, item: NavigationItem, customBar: CustomBar?) {
            barStyle = bar.barStyle
            barTintColor = bar.barTintColor
            tintColor = bar.tintColor
            titleTextAttributes = bar.titleTextAttributes
            backgroundImage = bar.backgroundImage
            shadowImage = bar.shadowImage
            if let customBar {
                isTranslucent = customBar.isTranslucent
                translucency = .customBar
                prefersLargeTitles = customBar.prefersLargeTitles
                prefersLargeTitlesSource = .customBar
            } else {
                isTranslucent = bar.effectiveIsTranslucent
                translucency = bar.isTranslucent != nil ? .bar : bar.backgroundImage?.isOpaque == true ? .opaqueBackgroundImage : .systemDefault
                prefersLargeTitles = bar.prefersLargeTitles
                prefersLargeTitlesSource = .bar
            }
            barTintIsTranslucent = barTintColor == nil ? nil : isTranslucent

            let standard = item.standardAppearance.map { Layer(appearance: $0, source: .item) }
                ?? Layer(appearance: bar.standardAppearance, source: .bar)
            let scrollEdge = Self.layer(item.scrollEdgeAppearance, bar.scrollEdgeAppearance,
                                        fallback: Layer(appearance: standard.appearance.withTransparentBackground,
                                                        source: .standardWithTransparentBackground))
            self.standard = standard
            self.scrollEdge = scrollEdge
            compact = Self.layer(item.compactAppearance, bar.compactAppearance,
                                 fallback: Layer(appearance: standard.appearance, source: .standard))
            compactScrollEdge = Self.layer(item.compactScrollEdgeAppearance, bar.compactScrollEdgeAppearance,
                                           fallback: Layer(appearance: scrollEdge.appearance, source: .scrollEdge))
        }

        private static func layer(_ item: NavigationBarAppearance?, _ bar: NavigationBarAppearance?, fallback: Layer) -> Layer {
            if let item { return Layer(appearance: item, source: .item) }
            if let bar { return Layer(appearance: bar, source: .bar) }
            return fallback
        }
    }

    /// Whether the title shows large (B-10), and which item decided it.
    public struct LargeTitle: Sendable, Hashable {
        public enum Rule: String, Sendable, CaseIterable {
            /// The bar does not prefer large titles: never large.
            case notPreferred
            /// The top item's mode is `always` or `never`.
            case topItem
            /// The top item is `automatic` and takes the size of the nearest item below that is not.
            case inherited
            /// Every item down to the root (the top included) is `automatic`: large, as a root's is.
            case rootDefault
        }

        public let isLarge: Bool
        /// The top item's mode.
        public let displayMode: NavigationItem.LargeTitleDisplayMode
        public let rule: Rule
        /// The screen whose mode decided (`nil` when the bar decided).
        public let decidedBy: ScreenID?

        init(resolving stack: NavigationStack, prefersLargeTitles: Bool) {
            displayMode = stack.top.navigationItem.largeTitleDisplayMode
            guard prefersLargeTitles else {
                isLarge = false
                rule = .notPreferred
                decidedBy = nil
                return
            }
            for screen in stack.screens.reversed() {
                switch screen.navigationItem.largeTitleDisplayMode {
                case .automatic: continue
                case .always, .never:
                    isLarge = screen.navigationItem.largeTitleDisplayMode == .always
                    rule = screen.id == stack.top.id ? .topItem : .inherited
                    decidedBy = screen.id
                    return
                }
            }
            isLarge = true
            rule = .rootDefault
            decidedBy = stack.root.id
        }
    }
}
