/// Reasons a navigation change is refused; the stack (and the session) is left unchanged.
///
/// A closed enum, so the HTTP layer maps it with an exhaustive `switch`. Where UIKit raises an
/// exception for the same mistake, ``uikitMessage`` holds its text verbatim so iOS developers
/// recognise it (semantics "beyond" item 13). Popping at the root is not an error (S-4).
public enum NavigationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The screen is already on the stack, on top or deeper (S-3; UIKit raises
    /// `NSInvalidArgumentException`).
    case alreadyOnStack(ScreenID)
    /// `popping(to:)` named a screen that is not on the stack (S-8; UIKit raises
    /// `NSInternalInconsistencyException`).
    case notOnStack(ScreenID)
    /// A new stack lists these ids more than once (S-10), each named once, in order.
    case duplicateScreens([ScreenID])
    /// A new stack lists no screen (S-12: UIKit tolerates it, we refuse it).
    case emptyStack
    /// The stack would hold more than ``NavigationLimits/maxStackDepth`` screens.
    case stackFull(limit: Int)
    /// An edit named a screen that is neither on the stack nor presented.
    case screenNotFound(ScreenID)
    /// The id belongs to the screen presented modally over the stack: ids are unique within a
    /// session (a view controller cannot be presented and pushed at once).
    case screenIsPresented(ScreenID)
    /// The screen to present is on the stack: a view controller with a parent cannot be
    /// presented (UIKit raises; its text names object addresses, so none is quoted here).
    case presentingScreenOnStack(ScreenID)
    /// A screen is already presented (this one); dismiss it first. UIKit only logs "Attempt to
    /// present ... which is already presenting ..." and ignores the call; we refuse it visibly.
    case alreadyPresenting(ScreenID)

    /// UIKit's exception text for the same mistake, `nil` where UIKit raises nothing.
    public var uikitMessage: String? {
        switch self {
        case .alreadyOnStack: "Pushing the same view controller instance more than once is not supported"
        case .notOnStack: "Tried to pop to a view controller that doesn't exist."
        case .duplicateScreens: "All view controllers in a navigation controller must be distinct"
        case .emptyStack, .stackFull, .screenNotFound, .screenIsPresented, .presentingScreenOnStack, .alreadyPresenting: nil
        }
    }

    /// The semantics rule that makes this an error, when there is one.
    public var rule: String? {
        switch self {
        case .alreadyOnStack: "S-3"
        case .notOnStack: "S-8"
        case .duplicateScreens: "S-10"
        case .emptyStack: "S-12"
        case .stackFull, .screenNotFound, .screenIsPresented, .presentingScreenOnStack, .alreadyPresenting: nil
        }
    }

    public var description: String {
        switch self {
        case .alreadyOnStack(let id): "screen '\(id)' is already on the stack"
        case .notOnStack(let id): "screen '\(id)' is not on the stack"
        case .duplicateScreens(let ids): "a stack lists each screen once; repeated: \(ids.map(\.rawValue).joined(separator: ", "))"
        case .emptyStack: "a stack holds at least one screen"
        case .stackFull(let limit): "a stack holds at most \(limit) screens"
        case .screenNotFound(let id): "screen '\(id)' is not in this session"
        case .screenIsPresented(let id): "screen '\(id)' is presented modally; dismiss it first"
        case .presentingScreenOnStack(let id): "screen '\(id)' is on the stack and cannot be presented"
        case .alreadyPresenting(let id): "screen '\(id)' is already presented; dismiss it first"
        }
    }
}
