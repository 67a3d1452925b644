import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// One write to a session: the edit runs in the store's transaction on the session as stored,
/// under the request's `If-Match`; the answer carries the new `ETag`.
struct SessionWrite {
    let store: any Store

    func run<Result: Sendable>(
        _ request: APIRequest,
        edit: @escaping @Sendable (inout NavigationSession) throws(NavigationError) -> SessionEdit<Result>,
        answer: @escaping @Sendable (SessionChange<Result>) -> JSONObject
    ) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let id = try request.sessionID()
        let precondition = ETag.precondition(from: request.http.headers)
        return try IdempotentWrites.run(request, profile: profile, store: store, .updateSession(id, of: profile, if: precondition, edit)) { change in
            SessionJSON.response(answer(change), change.state)
        }
    }

    /// A stack change (S-2..S-12): logged as a `navigation` event when the stack changed, and
    /// answered with the transition (the new stack, the removed screens, the operation).
    func transition(_ request: APIRequest,
                    _ operation: @escaping @Sendable (inout NavigationSession) throws(NavigationError) -> NavigationTransition)
        throws(APIError) -> APIResult {
        try run(request, edit: { session throws(NavigationError) in
            let transition = try operation(&session)
            return SessionEdit(result: transition,
                               event: transition.changed ? (transition.action.rawValue, transition.eventPayload) : nil)
        }, answer: { change in
            SessionJSON.change(change.state, eventID: change.eventID, change.result.json)
        })
    }

    /// An edit that answers the whole session (appearance, options, presentation).
    func sessionEdit(_ request: APIRequest, action: String,
                     _ body: @escaping @Sendable (inout NavigationSession) throws(NavigationError) -> JSONObject?)
        throws(APIError) -> APIResult {
        try run(request, edit: { session throws(NavigationError) in
            let details = try body(&session)
            return SessionEdit(result: (), event: details.map { (action, $0) })
        }, answer: { change in
            SessionJSON.session(change.state, eventID: .some(change.eventID))
        })
    }
}
