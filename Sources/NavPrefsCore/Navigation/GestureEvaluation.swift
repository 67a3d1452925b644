/// What one pan would do in a session: the operation it starts, where it leads, and whether it
/// finishes or is cancelled (G-3..G-9); "beyond" item 2, so thin clients and tests share one
/// deterministic rule set.
public struct GestureEvaluation: Sendable, Hashable {
    /// The direction the velocity names (G-4): back is toward the trailing edge (rightward
    /// left-to-right), forward toward the leading edge.
    public enum Direction: String, Sendable, CaseIterable {
        case back, forward, none
    }

    /// What the pan does once it begins.
    public enum Operation: Sendable, Hashable {
        case none
        /// Pop one level (G-8, no back target), to ``target``.
        case pop(to: ScreenID)
        /// Back to any page (G-8).
        case popTo(ScreenID)
        /// Forward to the top's forward target (G-7), pushed as it is.
        case push(Screen)

        public var name: String {
            switch self {
            case .none: "none"
            case .pop: "pop"
            case .popTo: "popTo"
            case .push: "push"
            }
        }

        /// The screen that would be on top.
        public var target: ScreenID? {
            switch self {
            case .none: nil
            case .pop(let id), .popTo(let id): id
            case .push(let screen): screen.id
            }
        }
    }

    /// Why a pan does nothing, with the rule that says so.
    public enum Refusal: String, Sendable, CaseIterable {
        /// One screen: nothing to go back to (G-1).
        case atRoot
        /// UIKit's back swipe is off while a custom left item replaces the back button (G-2).
        case customLeftItem
        /// UIKit's back swipe is off while `hidesBackButton` hides the back button: like a custom
        /// left item (G-2), the back button is gone, so is its gesture (our reading of UIKit).
        case hiddenBackButton
        /// XZ: the pan is not horizontal enough, `|translation.x| < 10 × |translation.y|` (G-3).
        case notHorizontal
        /// No horizontal velocity, so no direction (G-4).
        case noHorizontalVelocity
        /// Started outside the leading 20 pt (G-5) or, for full-screen kinds, never.
        case outsideEdge
        /// Started outside the top screen's edge insets (G-6).
        case outsideInsets
        /// Forward pans need an XZ session whose top screen names a forward target (G-7).
        case noForwardTarget
        /// The forward target is already on the stack: pushing it would raise (S-3).
        case forwardTargetOnStack
        /// The forward target's id is the presented screen's.
        case forwardTargetIsPresented
        /// The stack is at ``NavigationLimits/maxStackDepth``.
        case stackFull
        /// The back target is not on the stack: popping to it would raise (S-8).
        case backTargetNotOnStack

        public var rule: String {
            switch self {
            case .atRoot: "G-1"
            case .customLeftItem, .hiddenBackButton: "G-2"
            case .notHorizontal: "G-3"
            case .noHorizontalVelocity: "G-4"
            case .outsideEdge: "G-5"
            case .outsideInsets: "G-6"
            case .noForwardTarget: "G-7"
            case .forwardTargetOnStack: "S-3"
            case .forwardTargetIsPresented: "S-14"
            case .stackFull: "limit"
            case .backTargetNotOnStack: "S-8"
            }
        }
    }

    /// What made a pan finish (G-9).
    public enum Finish: String, Sendable, CaseIterable {
        /// Speed in the operation's direction above 400 pt/s.
        case velocity
        /// Translation in the operation's direction beyond 40 % of the width.
        case distance
    }

    /// Speed beyond which a released pan finishes, points per second (G-9).
    public static let finishingSpeed: Double = 400
    /// Fraction of the width beyond which a released pan finishes (G-9).
    public static let finishingFraction: Double = 0.4

    public let recognizer: NavigationOptions.BackGesture
    public let direction: Direction
    public let operation: Operation
    /// Why the operation is `none`, when it is.
    public let refusal: Refusal?
    /// Whether the released pan completes the operation; false means it is cancelled.
    public let wouldFinish: Bool
    public let finishedBy: Finish?
    /// The transition's progress: translation in the operation's direction over the width, 0...1.
    public let progress: Double
    /// Screens a cancelled back-to-any-page pan removes anyway (G-9, XZ known issue 3: those
    /// between the target and the top; UIKit does not restore them). Empty otherwise.
    public let removedEvenIfCancelled: [ScreenID]

    public var json: JSONValue {
        .object([
            "recognizer": .string(recognizer.rawValue),
            "direction": .string(direction.rawValue),
            "operation": .string(operation.name),
            "target": jsonOrNull(operation.target) { .string($0.rawValue) },
            "refusal": jsonOrNull(refusal) { .object(["reason": .string($0.rawValue), "rule": .string($0.rule)]) },
            "wouldFinish": .bool(wouldFinish),
            "finishedBy": jsonOrNull(finishedBy) { .string($0.rawValue) },
            "progress": .number(progress),
            "removedEvenIfCancelled": .array(removedEvenIfCancelled.map { .string($0.rawValue) }),
        ])
    }
}

/// A pan performed on a session: its evaluation, and the change it made (`nil` when nothing
/// changed: refused, or cancelled without skipped screens).
public struct GestureOutcome: Sendable, Hashable {
    public let evaluation: GestureEvaluation
    public let transition: NavigationTransition?

    public var json: JSONValue {
        .object(["evaluation": evaluation.json, "transition": jsonOrNull(transition, \.json)])
    }
}
