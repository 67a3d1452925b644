import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// Changes to a session that are not stack operations: a screen or its navigation item edited
/// in place, the bar's appearance (B-7..B-9), the kind of controller (G-10), and a screen
/// presented modally over the stack (S-14). An edit that changes nothing logs no event.
struct SessionEditRoutes: RouteCollection {
    let write: SessionWrite

    static let base = SessionRoutes.resource

    var routes: [Route] {
        [
            Route(.put, Self.base + "/screens/{screenId}", .profile, .writes, maxBodyBytes: Route.largeBody, replaceScreen),
            Route(.put, Self.base + "/screens/{screenId}/navigation-item", .profile, .writes, maxBodyBytes: Route.largeBody, setNavigationItem),
            Route(.put, Self.base + "/appearance", .profile, .writes, maxBodyBytes: Route.largeBody, setAppearance),
            Route(.put, Self.base + "/options", .profile, .writes, maxBodyBytes: Route.largeBody, setOptions),
            Route(.post, Self.base + "/present", .profile, .writes, maxBodyBytes: Route.largeBody, present),
            Route(.post, Self.base + "/dismiss", .profile, .writes, dismiss),
        ]
    }

    /// Replaces a screen (on the stack or presented) as it is: its item, custom bar, gestures.
    private func replaceScreen(_ request: APIRequest) throws(APIError) -> APIResult {
        let id = try request.screenID()
        let json = try request.jsonBody(required: true) ?? .null
        let screen = try NavigationBody.decode { () throws(NavigationDecodingError) in try Screen(json: json) }
        guard screen.id == id else {
            throw APIError(.invalidNavigation, "The body's id '\(screen.id)' must be the id in the path, '\(id)'.",
                           extensions: ["pointer": .string("/id")])
        }
        return try screenEdit(request, id: id, action: "replaceScreen") { session throws(NavigationError) in
            try session.replaceScreen(screen)
        }
    }

    /// Replaces a screen's navigation item: its title, bar button items, back button.
    private func setNavigationItem(_ request: APIRequest) throws(APIError) -> APIResult {
        let id = try request.screenID()
        let json = try request.jsonBody(required: true) ?? .null
        let item = try NavigationBody.decode { () throws(NavigationDecodingError) in try NavigationItem(json: json) }
        return try screenEdit(request, id: id, action: "setNavigationItem") { session throws(NavigationError) in
            try session.updateItem(of: id, to: item)
        }
    }

    private func setAppearance(_ request: APIRequest) throws(APIError) -> APIResult {
        let json = try request.jsonBody(required: true) ?? .null
        let appearance = try NavigationBody.decode { () throws(NavigationDecodingError) in try BarAppearance(json: json) }
        return try write.sessionEdit(request, action: "setAppearance") { session in
            let before = session
            session.setAppearance(appearance)
            return session == before ? nil : [:]
        }
    }

    private func setOptions(_ request: APIRequest) throws(APIError) -> APIResult {
        let json = try request.jsonBody(required: true) ?? .null
        let options = try NavigationBody.decode { () throws(NavigationDecodingError) in try NavigationOptions(json: json) }
        return try write.sessionEdit(request, action: "setOptions") { session in
            let before = session
            session.setOptions(options)
            return session == before ? nil : [:]
        }
    }

    /// `present(_:animated:)`: the screen becomes the visible one, over the stack (S-14).
    private func present(_ request: APIRequest) throws(APIError) -> APIResult {
        let body = try JSONBody.object(of: request.http, allowed: ["screen", "animated"], required: true)
        _ = try NavigationBody.animated(in: body)
        let json = try NavigationBody.required("screen", in: body ?? [:])
        let screen = try NavigationBody.decode { () throws(NavigationDecodingError) in try Screen(json: json, at: "/screen") }
        return try write.sessionEdit(request, action: "present") { session throws(NavigationError) in
            try session.present(screen)
            return ["screen": .string(screen.id.rawValue)]
        }
    }

    /// `dismiss(animated:)`: with nothing presented, nothing changes and no event is logged.
    private func dismiss(_ request: APIRequest) throws(APIError) -> APIResult {
        _ = try NavigationBody.animated(in: JSONBody.object(of: request.http, allowed: ["animated"], required: false))
        return try write.sessionEdit(request, action: "dismiss") { session in
            session.dismiss().map { ["screen": .string($0.id.rawValue)] }
        }
    }

    /// An edit of screen `id`, answered with the screen as it is now.
    private func screenEdit(_ request: APIRequest, id: ScreenID, action: String,
                            _ body: @escaping @Sendable (inout NavigationSession) throws(NavigationError) -> Void)
        throws(APIError) -> APIResult {
        try write.run(request, edit: { session throws(NavigationError) in
            let before = session
            try body(&session)
            let changed = session != before
            return SessionEdit(result: (), event: changed ? (action, ["screen": .string(id.rawValue)]) : nil)
        }, answer: { change in
            let session = change.state.session
            let screen = session.presented?.id == id ? session.presented : session.stack[id]
            return SessionJSON.change(change.state, eventID: change.eventID, .object(["screen": screen?.json ?? .null]))
        })
    }
}
