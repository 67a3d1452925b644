/// What one stack change did: the stack before and after, the screens it removed, and how UIKit
/// would have announced it. Stores turn a transition into a `navigation` event when
/// ``isTransition`` (S-13), and into a new version when ``changed``.
public struct NavigationTransition: Sendable, Hashable {
    /// The request that led here (the route a client called).
    public enum Action: String, Sendable, CaseIterable {
        case push, pop, popToRoot, popTo
        /// `setViewControllers(_:animated:)` / `viewControllers = ...` (S-10, S-11).
        case setStack
    }

    /// `UINavigationController.Operation`: how the change animates and what delegates hear.
    /// `none` when the top stays the same: nothing is shown, no `willShow`/`didShow` (S-4, S-7).
    public enum Operation: String, Sendable, CaseIterable {
        case none, push, pop
    }

    /// How a change made by a pan ended (G-9); `nil` for changes made by calls.
    public enum Interaction: String, Sendable, CaseIterable {
        case finished
        /// The pan was released short of the thresholds. Nothing moves, except the screens a
        /// back-to-any-page pan skipped, which stay removed (XZ known issue 3, from UIKit).
        case cancelled
    }

    /// One delegate callback, in order (`navigationController(_:willShow:animated:)` ...).
    public struct Event: Sendable, Hashable {
        public enum Name: String, Sendable, CaseIterable {
            case willShow, didShow
        }

        public let name: Name
        public let screen: ScreenID
        public let animated: Bool

        public var json: JSONValue {
            .object(["name": .string(name.rawValue), "screen": .string(screen.rawValue), "animated": .bool(animated)])
        }
    }

    public let action: Action
    public let operation: Operation
    public let before: NavigationStack
    public let after: NavigationStack
    /// Screens no longer on the stack, bottom to top (S-6: order is ours).
    public let removed: [Screen]
    public let animated: Bool
    public let interaction: Interaction?

    init(action: Action, operation: Operation, before: NavigationStack, after: NavigationStack, removed: [Screen],
         animated: Bool, interaction: Interaction? = nil) {
        self.action = action
        self.operation = operation
        self.before = before
        self.after = after
        self.removed = removed
        self.animated = animated
        self.interaction = interaction
    }

    /// The top before: the `from` view controller of a transition.
    public var from: ScreenID { before.top.id }
    /// The top after: the `to` view controller.
    public var to: ScreenID { after.top.id }
    /// Whether a transition happens (a new top is shown): the event-worthy changes (S-13).
    public var isTransition: Bool { operation != .none }
    /// Whether the stack differs (a new version), which can be true without a transition (a
    /// stack replaced below an unchanged top, a cancelled pan that skipped screens).
    public var changed: Bool { before != after }
    /// `popViewController(animated:)`'s result: the former top, `nil` at the root (S-4, S-5).
    public var popped: Screen? { removed.last }
    /// The delegate callbacks for the new top, `willShow` then `didShow` (S-13); none when
    /// nothing is shown.
    public var events: [Event] {
        guard isTransition else { return [] }
        return [Event(name: .willShow, screen: to, animated: animated), Event(name: .didShow, screen: to, animated: animated)]
    }

    /// The response to a stack operation: everything, with removed screens in full. A `pop`
    /// also says `popped` (`null` at the root, the return value of `popViewController`).
    public var json: JSONValue {
        var object: JSONObject = [
            "action": .string(action.rawValue),
            "operation": .string(operation.rawValue),
            "isTransition": .bool(isTransition),
            "changed": .bool(changed),
            "animated": .bool(animated),
            "interaction": jsonOrNull(interaction) { .string($0.rawValue) },
            "from": .string(from.rawValue),
            "to": .string(to.rawValue),
            "removed": .array(removed.map(\.json)),
        ]
        if action == .pop { object["popped"] = jsonOrNull(popped, \.json) }
        object["events"] = .array(events.map(\.json))
        object["stack"] = after.json
        return .object(object)
    }

    /// The data of a `navigation` event: what a mirror needs to follow the stack (`operation`,
    /// `from`, `to`, the removed ids, `animated`), without the screens' contents.
    public var eventPayload: JSONObject {
        [
            "action": .string(action.rawValue),
            "operation": .string(operation.rawValue),
            "from": .string(from.rawValue),
            "to": .string(to.rawValue),
            "removed": .array(removed.map { .string($0.id.rawValue) }),
            "animated": .bool(animated),
            "interaction": jsonOrNull(interaction) { .string($0.rawValue) },
            "stack": .array(after.ids.map { .string($0.rawValue) }),
        ]
    }
}
