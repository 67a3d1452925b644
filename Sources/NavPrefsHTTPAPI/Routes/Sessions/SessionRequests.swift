import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// Reading navigation requests: path ids, bodies decoded by the core's strict decoders, and
/// the members every answer about a session starts with.
extension APIRequest {
    /// The `{session}` path parameter. A text that cannot be a session id names no session: 404.
    func sessionID() throws(APIError) -> SessionID {
        let text = parameter("session")
        do {
            return try SessionID(text)
        } catch {
            throw APIError(.sessionNotFound, "This profile has no navigation session '\(text.prefix(80))': \(error.description).")
        }
    }

    /// The `{screenId}` path parameter. A text that cannot be a screen id names no screen: 404.
    func screenID() throws(APIError) -> ScreenID {
        let text = parameter("screenId")
        do {
            return try ScreenID(text)
        } catch {
            throw APIError(.screenNotFound, "'\(text.prefix(80))' is not a screen id: \(error.description).")
        }
    }

    /// The body as one JSON value (`nil` when empty and optional); the core decoders check its shape.
    func jsonBody(required: Bool) throws(APIError) -> JSONValue? {
        guard !http.body.isEmpty else {
            if required { throw APIError(.invalidBody, "This operation needs a JSON object body.") }
            return nil
        }
        try JSONBody.requireJSONContentType(http.headers[HeaderName.contentType])
        return try JSONBody.parse(http.body)
    }
}

enum NavigationBody {
    /// Runs a core decoder, answering its error as problem+json with a JSON Pointer.
    static func decode<T>(_ body: () throws(NavigationDecodingError) -> T) throws(APIError) -> T {
        do {
            return try body()
        } catch {
            throw APIError(error)
        }
    }

    /// Member `name` of a body object, required.
    static func required(_ name: String, in object: JSONObject) throws(APIError) -> JSONValue {
        guard let value = object[name], value != .null else {
            throw APIError(.invalidBody, "The body needs the member '\(name)'.", extensions: ["pointer": .string("/" + name)])
        }
        return value
    }

    /// The optional `animated` member (UIKit's `animated:` argument): recorded, true by default.
    static func animated(in object: JSONObject?) throws(APIError) -> Bool {
        switch object?["animated"] {
        case nil, .null?: return true
        case .bool(let animated)?: return animated
        case let other?:
            throw APIError(.invalidBody, "'animated' must be a boolean, not \(other.typeName).", extensions: ["pointer": .string("/animated")])
        }
    }
}

/// The JSON answers about sessions.
enum SessionJSON {
    /// `profile`, `session`, `version`: the members every answer about a session starts with.
    static func header(_ state: SessionState) -> JSONObject {
        [
            "profile": .string(state.profile.rawValue),
            "session": .string(state.id.rawValue),
            "version": .integer(state.version.rawValue),
        ]
    }

    /// The whole session; with `eventID` when answering a write (`nil` inside: nothing changed).
    static func session(_ state: SessionState, eventID: Int64?? = .none) -> JSONObject {
        var object = header(state)
        if case .some(let id) = eventID { object["eventId"] = id.map(JSONValue.integer) ?? .null }
        let session = state.session
        object["stack"] = session.stack.json
        object["appearance"] = session.appearance.json
        object["options"] = session.options.json
        object["presented"] = session.presented?.json ?? .null
        object["visible"] = .string(session.visible.id.rawValue)
        object["label"] = state.label.map(JSONValue.string) ?? .null
        object["createdAt"] = .string(AccessToken.timestamp(milliseconds: state.createdAt))
        object["updatedAt"] = .string(AccessToken.timestamp(milliseconds: state.updatedAt))
        return object
    }

    /// One line of a session list: enough to pick a session without reading its screens.
    static func summary(_ summary: SessionSummary) -> JSONValue {
        .object([
            "id": .string(summary.id.rawValue),
            "version": .integer(summary.version.rawValue),
            "depth": .integer(Int64(summary.depth)),
            "root": .string(summary.root.rawValue),
            "top": .string(summary.top.rawValue),
            "label": summary.label.map(JSONValue.string) ?? .null,
            "createdAt": .string(AccessToken.timestamp(milliseconds: summary.createdAt)),
            "updatedAt": .string(AccessToken.timestamp(milliseconds: summary.updatedAt)),
        ])
    }

    /// `header` and `eventId`, then the members of `body` (a transition, an outcome).
    static func change(_ state: SessionState, eventID: Int64?, _ body: JSONValue) -> JSONObject {
        var object = header(state)
        object["eventId"] = eventID.map(JSONValue.integer) ?? .null
        if case .object(let members) = body {
            for member in members { object[member.key] = member.value }
        }
        return object
    }

    static func response(_ object: JSONObject, _ state: SessionState, request: HTTPRequest? = nil) -> HTTPResponse {
        JSONResponse.make(json: JSONValue.object(object).jsonText, version: state.version, request: request)
    }
}
