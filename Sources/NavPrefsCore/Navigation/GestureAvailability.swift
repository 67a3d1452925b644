/// Which navigation pans a session allows right now, before any touch: whether a back pan and
/// a forward pan can begin, where they may start, and where they lead (G-1, G-2, G-5..G-8, G-10).
public struct GestureAvailability: Sendable, Hashable {
    /// Where in the view a pan may start, measured from the edges the layout direction names.
    public enum Region: Sendable, Hashable {
        case fullScreen
        /// The 20 pt leading strip: UIKit's edge swipe, and XZ's default for screens that do
        /// not adopt `XZNavigationGestureDrivable` (G-5).
        case defaultEdge
        /// Within `leading` points of the leading edge (G-6, back pans).
        case leadingInset(Double)
        /// Within `trailing` points of the trailing edge (G-6, forward pans).
        case trailingInset(Double)

        /// The width of ``defaultEdge``, in points.
        public static let defaultEdgeWidth: Double = 20

        /// Whether a pan starting at `x` in a view `width` wide starts inside the region;
        /// right-to-left, leading is the right edge.
        public func contains(x: Double, width: Double, direction: PanGesture.LayoutDirection) -> Bool {
            let leadingLimit: Double
            switch self {
            case .fullScreen: return true
            case .defaultEdge: leadingLimit = Self.defaultEdgeWidth
            case .leadingInset(let inset): leadingLimit = inset
            case .trailingInset(let inset):
                return direction == .leftToRight ? x >= width - inset : x <= inset
            }
            return direction == .leftToRight ? x <= leadingLimit : x >= width - leadingLimit
        }

        /// The refusal of a pan that starts outside.
        var refusalOutside: GestureEvaluation.Refusal {
            switch self {
            case .fullScreen, .defaultEdge: .outsideEdge
            case .leadingInset, .trailingInset: .outsideInsets
            }
        }

        public var json: JSONValue {
            switch self {
            case .fullScreen: .object(["kind": .string("fullScreen")])
            case .defaultEdge: .object(["kind": .string("leadingEdge"), "width": .number(Self.defaultEdgeWidth)])
            case .leadingInset(let inset): .object(["kind": .string("leadingEdge"), "width": .number(inset)])
            case .trailingInset(let inset): .object(["kind": .string("trailingEdge"), "width": .number(inset)])
            }
        }
    }

    /// One direction of pan.
    public struct Side: Sendable, Hashable {
        /// Whether a pan in this direction can begin, if it starts inside ``region``.
        public var canBegin: Bool { refusal == nil }
        /// Why it cannot, `nil` when it can.
        public let refusal: GestureEvaluation.Refusal?
        public let region: Region
        /// What a finished pan does (`none` when refused).
        public let operation: GestureEvaluation.Operation

        public var json: JSONValue {
            .object([
                "canBegin": .bool(canBegin),
                "refusal": jsonOrNull(refusal) { .object(["reason": .string($0.rawValue), "rule": .string($0.rule)]) },
                "region": region.json,
                "operation": .string(operation.name),
                "target": jsonOrNull(operation.target) { .string($0.rawValue) },
            ])
        }
    }

    /// The recognizer that handles navigation pans in this session.
    public let recognizer: NavigationOptions.BackGesture
    /// Whether UIKit's `interactivePopGestureRecognizer` is enabled: not when seed 002's
    /// full-screen pan or XZ's pan replaces it (G-10: XZ also makes it wait for its own to fail).
    public let interactivePopGestureEnabled: Bool
    public let back: Side
    public let forward: Side

    public var json: JSONValue {
        .object([
            "recognizer": .string(recognizer.rawValue),
            "interactivePopGestureEnabled": .bool(interactivePopGestureEnabled),
            "back": back.json,
            "forward": forward.json,
        ])
    }
}
