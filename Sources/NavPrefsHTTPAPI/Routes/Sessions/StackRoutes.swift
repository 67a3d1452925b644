import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// The stack operations of a session, with UIKit's rules (S-2..S-12): push, pop (never below
/// the root), pop to root, pop to a screen, and replacing the whole stack. Each answers the
/// transition: the new stack, the screens removed, the operation, and the session's version.
struct StackRoutes: RouteCollection {
    let write: SessionWrite

    static let base = SessionRoutes.resource

    var routes: [Route] {
        [
            Route(.post, Self.base + "/push", .profile, .writes, maxBodyBytes: Route.largeBody, push),
            Route(.post, Self.base + "/pop", .profile, .writes, pop),
            Route(.post, Self.base + "/pop-to-root", .profile, .writes, popToRoot),
            Route(.post, Self.base + "/pop-to", .profile, .writes, popTo),
            Route(.put, Self.base + "/stack", .profile, .writes, maxBodyBytes: Route.largeBody, setStack),
        ]
    }

    /// `pushViewController(_:animated:)`: a screen already on the stack is refused (S-3).
    private func push(_ request: APIRequest) throws(APIError) -> APIResult {
        let body = try JSONBody.object(of: request.http, allowed: ["screen", "animated"], required: true)
        let animated = try NavigationBody.animated(in: body)
        let json = try NavigationBody.required("screen", in: body ?? [:])
        let screen = try NavigationBody.decode { () throws(NavigationDecodingError) in try Screen(json: json, at: "/screen") }
        return try write.transition(request) { session throws(NavigationError) in try session.push(screen, animated: animated) }
    }

    /// `popViewController(animated:)`: at the root nothing happens, `popped` is null and no
    /// event is logged (S-4, S-5).
    private func pop(_ request: APIRequest) throws(APIError) -> APIResult {
        let animated = try NavigationBody.animated(in: JSONBody.object(of: request.http, allowed: ["animated"], required: false))
        return try write.transition(request) { session in session.pop(animated: animated) }
    }

    /// `popToRootViewController(animated:)` (S-9).
    private func popToRoot(_ request: APIRequest) throws(APIError) -> APIResult {
        let animated = try NavigationBody.animated(in: JSONBody.object(of: request.http, allowed: ["animated"], required: false))
        return try write.transition(request) { session in session.popToRoot(animated: animated) }
    }

    /// `popToViewController(_:animated:)`: a screen not on the stack is refused with UIKit's
    /// message, and the stack stays as it was (S-6..S-8).
    private func popTo(_ request: APIRequest) throws(APIError) -> APIResult {
        let body = try JSONBody.object(of: request.http, allowed: ["screenId", "animated"], required: true)
        let animated = try NavigationBody.animated(in: body)
        guard case .string(let text) = try NavigationBody.required("screenId", in: body ?? [:]) else {
            throw APIError(.invalidBody, "'screenId' must be a string.", extensions: ["pointer": .string("/screenId")])
        }
        let target: ScreenID
        do {
            target = try ScreenID(text)
        } catch {
            throw APIError(.invalidNavigation, APIError.sentence("/screenId: \(error.description)"), extensions: ["pointer": .string("/screenId")])
        }
        return try write.transition(request) { session throws(NavigationError) in try session.pop(to: target, animated: animated) }
    }

    /// `setViewControllers(_:animated:)`: a non-empty list of distinct screens; reported as a
    /// push or a pop by whether the new top was on the stack before (S-10, S-11).
    private func setStack(_ request: APIRequest) throws(APIError) -> APIResult {
        let body = try JSONBody.object(of: request.http, allowed: ["screens", "animated"], required: true)
        let animated = try NavigationBody.animated(in: body)
        let json = try NavigationBody.required("screens", in: body ?? [:])
        let screens = try NavigationBody.decode { () throws(NavigationDecodingError) in try NavigationStack.screens(json: json, at: "/screens") }
        // Refused before any precondition or lookup: an empty stack is never valid (S-12).
        if screens.isEmpty { throw APIError(NavigationError.emptyStack) }
        return try write.transition(request) { session throws(NavigationError) in try session.setScreens(screens, animated: animated) }
    }
}
