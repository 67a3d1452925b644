import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// Navigation sessions of a profile (UINavigationController instances): create, list, read,
/// delete. A session starts as exactly its root (S-1); its id is 128 random bits.
struct SessionRoutes {
    let store: any Store

    static let collection = "/v1/profiles/{profile}/sessions"
    static let resource = "/v1/profiles/{profile}/sessions/{session}"

    var routes: [Route] {
        [
            Route("POST", Self.collection, create),
            Route("GET", Self.collection, list),
            Route("GET", Self.resource, read),
            Route("DELETE", Self.resource, delete),
        ]
    }

    private func create(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let body = try JSONBody.object(of: request.http, allowed: ["root", "appearance", "options"], required: true) ?? [:]
        let root = try NavigationBody.required("root", in: body)
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
        let store = self.store
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let change = try await store.createSession(session, of: profile)
            var response = SessionJSON.response(SessionJSON.session(change.state, eventID: change.eventID), change.state)
            response.status = 201
            response.headers.add("Location", "/v1/profiles/\(profile)/sessions/\(change.state.id)")
            return response
        }
    }

    private func list(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let store = self.store
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let sessions = try await store.sessions(of: profile)
            let body: JSONObject = [
                "profile": .string(profile.rawValue),
                "sessions": .array(sessions.map { summary in
                    .object([
                        "id": .string(summary.id.rawValue),
                        "version": .integer(summary.version.rawValue),
                        "depth": .integer(Int64(summary.depth)),
                        "root": .string(summary.root.rawValue),
                        "top": .string(summary.top.rawValue),
                    ])
                }),
            ]
            return JSONResponse.make(json: JSONValue.object(body).jsonText, version: nil)
        }
    }

    private func read(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let id = try request.sessionID()
        let store = self.store
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let state = try await store.session(id, of: profile)
            return SessionJSON.response(SessionJSON.session(state), state, request: request.http)
        }
    }

    private func delete(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let id = try request.sessionID()
        let precondition = ETag.precondition(from: request.http.headers)
        let store = self.store
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let eventID = try await store.deleteSession(id, of: profile, if: precondition)
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
