import MicroHTTPServer
import NavPrefsJSON
import NavPrefsCore

/// Reads request bodies: JSON objects only, with a known set of members.
enum JSONBody {
    /// The body as a JSON object whose members are all in `allowed`; `nil` for an empty body
    /// when the body is optional.
    /// - Throws: 415 for a body that is not `application/json`, 400 for malformed JSON, a body
    ///   that is not an object, or a member the operation does not know (a typo must not be
    ///   silently ignored, OWASP API3).
    /// - Parameter allowed: a list, not a set: a few names, compared in place, where a set
    ///   literal was built and hashed on every request.
    static func object(of request: HTTPRequest, allowed: [String], required: Bool) throws(APIError) -> JSONObject? {
        guard !request.body.isEmpty else {
            if required { throw APIError(.invalidBody, "This operation needs a JSON object body.") }
            return nil
        }
        try requireJSONContentType(request.headers[HeaderName.contentType])
        let value = try parse(request.body)
        guard case .object(let object) = value else {
            throw APIError(.invalidBody, "The body must be a JSON object, not \(value.typeName).", extensions: ["pointer": .string("")])
        }
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            let known = allowed.sorted().map { "'\($0)'" }.joined(separator: ", ")
            let pointer = "/" + pointerEscaped(String(unknown.prefix(80)))
            throw APIError(.invalidBody, "Unknown member '\(unknown.prefix(80))'; this operation takes \(known.isEmpty ? "no members" : known).",
                           extensions: ["pointer": .string(pointer)])
        }
        return object
    }

    /// A JSON Merge Patch (RFC 7396: `application/merge-patch+json`, or plain JSON): an object
    /// whose members set their keys and whose `null` members remove them.
    static func mergePatch(of request: HTTPRequest) throws(APIError) -> JSONObject {
        guard !request.body.isEmpty else {
            throw APIError(.invalidBody, "This operation needs a JSON Merge Patch: an object of key to new value, null to remove.")
        }
        try requireJSONContentType(request.headers[HeaderName.contentType])
        let value = try parse(request.body)
        guard case .object(let object) = value else {
            throw APIError(.invalidBody, "A merge patch here is an object of key to new value, not \(value.typeName).",
                           extensions: ["pointer": .string("")])
        }
        return object
    }

    /// The body as JSON, or the problem that says why not (``APIError/init(unparsableBody:)``).
    static func parse(_ body: [UInt8]) throws(APIError) -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            throw APIError(unparsableBody: error)
        }
    }

    /// A member name as a JSON Pointer token (RFC 6901: `~` and `/` become `~0` and `~1`).
    static func pointerEscaped(_ name: String) -> String {
        name.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    /// Accepts `application/json` and `application/<anything>+json`, with a UTF-8 charset if any.
    static func requireJSONContentType(_ contentType: String?) throws(APIError) {
        guard let contentType else {
            throw APIError(.unsupportedMediaType, "A body needs Content-Type: application/json.")
        }
        if contentType == "application/json" { return }  // the usual case, without parsing
        let parts = contentType.split(separator: ";").map { $0.trimmingASCIISpaces().lowercased() }
        let mediaType = parts.first ?? ""
        let isJSON = mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
        let charset = parts.dropFirst().first { $0.hasPrefix("charset=") }.map { $0.dropFirst(8).trimmingCharacters(in: "\"") }
        guard isJSON, charset == nil || charset == "utf-8" else {
            throw APIError(.unsupportedMediaType, "Bodies are JSON in UTF-8 (Content-Type: application/json), not '\(contentType.prefix(80))'.")
        }
    }
}

extension JSONObject {
    /// Member `key` as an Int64; JSON Schema's integers include `5.0`.
    func int64(_ key: String) throws(APIError) -> Int64? {
        guard let value = self[key] else { return nil }
        guard let integer = value.integralValue else {
            throw APIError(.invalidBody, "'\(key)' must be an integer between \(Int64.min) and \(Int64.max), not \(value.typeName) \(value.jsonText.prefix(40)).")
        }
        return integer
    }

    func requireInt64(_ key: String) throws(APIError) -> Int64 {
        guard let value = try int64(key) else { throw APIError(.invalidBody, "The body needs the member '\(key)'.") }
        return value
    }
}

extension Substring {
    func trimmingCharacters(in characters: Character) -> String {
        String(drop { $0 == characters }.reversed().drop { $0 == characters }.reversed())
    }
}
