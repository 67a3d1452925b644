import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// What a session's screen shows and allows right now: the navigation bar resolved by
/// B-1..B-11, which swipes may navigate (G-1..G-11), and what one pan would do, evaluated
/// without changing anything or performed as a stack change.
struct NavigationBarRoutes: RouteCollection {
    let store: any Store
    let write: SessionWrite

    static let base = SessionRoutes.resource

    var routes: [Route] {
        [
            Route(.get, Self.base + "/navigation-bar", .profile, .reads, navigationBar),
            Route(.get, Self.base + "/gestures", .profile, .reads, gestures),
            Route(.post, Self.base + "/gestures/evaluate", .profile, .reads, evaluate),
            Route(.post, Self.base + "/gestures/perform", .profile, .writes, perform),
        ]
    }

    private func navigationBar(_ request: APIRequest) throws(APIError) -> APIResult {
        try read(request, member: "navigationBar") { session in session.bar.json }
    }

    private func gestures(_ request: APIRequest) throws(APIError) -> APIResult {
        try read(request, member: "gestures") { session in session.gestureAvailability.json }
    }

    /// Would this pan navigate, and where to? Changes nothing.
    private func evaluate(_ request: APIRequest) throws(APIError) -> APIResult {
        let pan = try panGesture(request)
        let profile = try request.profile()
        let id = try request.sessionID()
        return .reading(.session(id, of: profile), from: store) { state in
            var object = SessionJSON.header(state)
            object["evaluation"] = state.session.evaluateGesture(pan).json
            return SessionJSON.response(object, state)
        }
    }

    /// Performs the pan: when it finishes (G-9) the stack changes as the gesture says.
    private func perform(_ request: APIRequest) throws(APIError) -> APIResult {
        let pan = try panGesture(request)
        return try write.run(request, edit: { session throws(NavigationError) in
            let outcome = try session.performGesture(pan)
            guard let transition = outcome.transition, transition.changed else { return .unchanged(outcome) }
            var details = transition.eventPayload
            details["gesture"] = .string(outcome.evaluation.recognizer.rawValue)
            return SessionEdit(result: outcome, event: (transition.action.rawValue, details))
        }, answer: { change in
            SessionJSON.change(change.state, eventID: change.eventID, change.result.json)
        })
    }

    private func panGesture(_ request: APIRequest) throws(APIError) -> PanGesture {
        let json = try request.jsonBody(required: true) ?? .null
        return try NavigationBody.decode { () throws(NavigationDecodingError) in try PanGesture(json: json) }
    }

    private func read(_ request: APIRequest, member: String, _ value: @escaping @Sendable (NavigationSession) -> JSONValue)
        throws(APIError) -> APIResult {
        let profile = try request.profile()
        let id = try request.sessionID()
        return .reading(.session(id, of: profile), from: store) { state in
            var object = SessionJSON.header(state)
            object[member] = value(state.session)
            return SessionJSON.response(object, state, request: request.http)
        }
    }
}
