import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// Navigation sessions of a profile (UINavigationController instances): create, list, read,
/// delete. A session starts as exactly its root (S-1); its id is 128 random bits. A client may
/// label it (an app's launch, a device) to find its own again; a session unchanged for the idle
/// expiry (30 days by default) is deleted by the store, with a `navigation` event (`expire`).
struct SessionRoutes: RouteCollection {
    let store: any Store

    static let collection = "/v1/profiles/{profile}/sessions"
    static let resource = "/v1/profiles/{profile}/sessions/{session}"

    var routes: [Route] {
        [
            Route(.post, Self.collection, .profile, .writes, maxBodyBytes: Route.largeBody, create),
            Route(.get, Self.collection, .profile, .reads, list),
            Route(.get, Self.resource, .profile, .reads, read),
            Route(.delete, Self.resource, .profile, .writes, delete),
        ]
    }

    private func create(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let body = try JSONBody.object(of: request.http, allowed: ["root", "appearance", "options", "label"], required: true) ?? [:]
        let root = try NavigationBody.required("root", in: body)
        let label = try Self.label(in: body)
        let session = try NavigationBody.decode { () throws(NavigationDecodingError) in
            let appearance = try body["appearance"].flatMap { $0 == .null ? nil : $0 }.map { value throws(NavigationDecodingError) in
                try BarAppearance(json: value, at: "/appearance")
            }
            let options = try body["options"].flatMap { $0 == .null ? nil : $0 }.map { value throws(NavigationDecodingError) in
                try NavigationOptions(json: value, at: "/options")
            }
            return NavigationSession(root: try Screen(json: root, at: "/root"), appearance: appearance ?? .systemDefault,
                                     options: options ?? NavigationOptions())
        }
        return try IdempotentWrites.run(request, profile: profile, store: store, .createSession(session, label: label, of: profile)) { change in
            var response = SessionJSON.response(SessionJSON.session(change.state, eventID: change.eventID), change.state)
            response.status = 201
            response.headers.add(HeaderName.location, "/v1/profiles/\(profile)/sessions/\(change.state.id)")
            return response
        }
    }

    /// The optional `label`: up to 200 characters, no control characters; null or absent: none.
    static func label(in body: JSONObject) throws(APIError) -> String? {
        switch body["label"] {
        case nil, .null?:
            return nil
        case .string(let label)? where label.count <= 200 && !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }):
            return label
        case let other?:
            throw APIError(.invalidBody, "'label' is a string of at most 200 characters without control characters, not \(other.typeName) \(other.jsonText.prefix(40)).",
                           extensions: ["pointer": .string("/label")])
        }
    }

    private func list(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        return .reading(.sessions(of: profile), from: store) { sessions in
            let body: JSONObject = [
                "profile": .string(profile.rawValue),
                "sessions": .array(sessions.map(SessionJSON.summary)),
            ]
            return JSONResponse.make(json: JSONValue.object(body).jsonText, version: nil)
        }
    }

    private func read(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let id = try request.sessionID()
        return .reading(.session(id, of: profile), from: store) { state in
            SessionJSON.response(SessionJSON.session(state), state, request: request.http)
        }
    }

    private func delete(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let id = try request.sessionID()
        let precondition = ETag.precondition(from: request.http.headers)
        return try IdempotentWrites.run(request, profile: profile, store: store, .deleteSession(id, of: profile, if: precondition)) { eventID in
            // Like every write: the version it made (the session's last) and the event it logged.
            var body = JSONObjectBuilder()
            body.add("profile", profile.rawValue)
            body.add("session", id.rawValue)
            body.add("deleted", true)
            body.add("version", eventID)
            body.add("eventId", eventID)
            return JSONResponse.make(body, version: nil)
        }
    }
}
