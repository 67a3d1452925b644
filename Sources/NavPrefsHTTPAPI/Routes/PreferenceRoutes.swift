import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// UserDefaults over HTTP, semantics P-1..P-7:
/// `GET /v1/profiles/{profile}/preferences` (`dictionaryRepresentation()`), and
/// `GET`/`PUT`/`DELETE /v1/profiles/{profile}/preferences/{key}` with typed reads (`?as=`).
struct PreferenceRoutes {
    let store: any Store
    let limits: PreferenceLimits

    static let collection = "/v1/profiles/{profile}/preferences"
    static let item = collection + "/{key}"

    var routes: [Route] {
        [
            Route("GET", Self.collection, list),
            Route("GET", Self.item, read),
            Route("PUT", Self.item, write),
            Route("DELETE", Self.item, remove),
        ]
    }

    private func list(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let store = self.store
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let snapshot = try await store.preferences(of: profile)
            var body = JSONObjectBuilder()
            body.add("profile", profile.rawValue)
            body.add("values", JSONValue.object(snapshot.merged))
            body.add("version", snapshot.version.rawValue)
            return JSONResponse.make(body, version: snapshot.version, request: request.http)
        }
    }

    private func read(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let key = try request.preferenceKey()
        let type = try Self.readType(of: request.http)
        let store = self.store
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let slot = try await store.preference(key, of: profile)
            if let type {
                // A typed read always answers, like UserDefaults' getters (P-1).
                var body = JSONObjectBuilder()
                body.add("key", key.rawValue)
                body.add("as", type.rawValue)
                body.add("value", type.read(slot.value))
                body.add("source", slot.source.rawValue)
                return JSONResponse.make(body, version: slot.viewVersion, request: request.http)
            }
            guard let value = slot.value, let version = slot.version else {
                return APIError(.preferenceNotFound, "No value is stored or registered under '\(key)'.").response(instance: request.http.path)
            }
            return JSONResponse.make(Self.body(key, value: value, source: slot.source, version: version), version: version,
                                     request: request.http)
        }
    }

    private func write(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let key = try request.preferenceKey()
        let body = try JSONBody.object(of: request.http, allowed: ["value"], required: true) ?? [:]
        guard let value = body["value"] else { throw APIError(.invalidBody, "The body needs the member 'value'.") }
        guard value != .null else {
            throw APIError(.invalidBody, "A preference cannot be null (UserDefaults stores no nil); DELETE it instead.")
        }
        try limits.check(value, for: key)
        let precondition = ETag.writePrecondition(from: request.http.headers)
        let store = self.store
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let change = try await store.setPreference(value, for: key, of: profile, if: precondition)
            let version = change.slot.viewVersion
            var body = Self.body(key, value: change.slot.value ?? value, source: .stored, version: version)
            body.add("eventId", change.eventID)
            var response = JSONResponse.make(body, version: version)
            if change.created { response.status = 201 }  // RFC 9110 9.3.4: PUT that creates
            return response
        }
    }

    private func remove(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let key = try request.preferenceKey()
        let precondition = ETag.writePrecondition(from: request.http.headers)
        let store = self.store
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let change = try await store.removePreference(key, of: profile, if: precondition)
            // What readers see now: the registered default, if any (P-6), or nothing.
            var body = JSONObjectBuilder()
            body.add("key", key.rawValue)
            if let value = change.slot.value { body.add("value", value) } else { body.addNull("value") }
            body.add("source", change.slot.source.rawValue)
            body.add("eventId", change.eventID)
            return JSONResponse.make(body, version: change.slot.version)
        }
    }

    static func body(_ key: PreferenceKey, value: JSONValue, source: PreferenceSlot.Source, version: Version) -> JSONObjectBuilder {
        var body = JSONObjectBuilder()
        body.add("key", key.rawValue)
        body.add("value", value)
        body.add("source", source.rawValue)
        body.add("version", version.rawValue)
        return body
    }

    /// `?as=string|integer|float|bool`, or `nil` for the value as stored.
    static func readType(of request: HTTPRequest) throws(APIError) -> PreferenceType? {
        guard let name = request.queryValue("as") else { return nil }
        guard let type = PreferenceType(rawValue: name) else {
            throw APIError(.invalidQuery, "'as' is one of string, integer, float, bool; not '\(name.prefix(40))'.")
        }
        return type
    }
}

/// Bounds on what clients may store, each answered with a clear 4xx.
struct PreferenceLimits: Sendable {
    /// The largest value, as compact JSON.
    var maxValueBytes = 64 << 10
    /// The most registered defaults per profile.
    var maxDefaults = 1_000

    func check(_ value: JSONValue, for key: PreferenceKey) throws(APIError) {
        let size = value.jsonText.utf8.count
        guard size <= maxValueBytes else {
            throw APIError(.valueTooLarge, "The value of '\(key)' takes \(size) bytes as JSON; the limit is \(maxValueBytes).",
                           extensions: ["limit": .integer(Int64(maxValueBytes))])
        }
        // Integers beyond Int64 never parse; numbers are held to the same range, so that every
        // number a client may store is one the typed reads can answer exactly.
        guard Self.numbersWithinInt64(value) else {
            throw APIError(.invalidValue, "Numbers in the value of '\(key)' must lie within the 64-bit integer range.",
                           extensions: ["key": .string(key.rawValue)])
        }
    }

    private static func numbersWithinInt64(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let number): number >= -0x1p63 && number < 0x1p63
        case .array(let items): items.allSatisfy(numbersWithinInt64)
        case .object(let object): object.allSatisfy { numbersWithinInt64($0.value) }
        case .null, .bool, .integer, .string: true
        }
    }
}

extension APIRequest {
    /// The `{key}` path parameter, validated.
    func preferenceKey() throws(APIError) -> PreferenceKey {
        let text = parameter("key")
        do {
            return try PreferenceKey(text)
        } catch {
            throw APIError(.invalidPreferenceKey, "'\(text.prefix(80))' is not a valid preference key: \(error).")
        }
    }
}

/// JSON responses of versioned resources: `ETag`, and 304 when `If-None-Match` has it already.
enum JSONResponse {
    static func make(_ body: JSONObjectBuilder, version: Version?, request: HTTPRequest? = nil) -> HTTPResponse {
        make(json: body.json, version: version, request: request)
    }

    /// The same for a body that is already JSON text.
    static func make(json: String, version: Version?, request: HTTPRequest? = nil) -> HTTPResponse {
        var headers = HTTPHeaders(reservingCapacity: 6)  // with the ones NavPrefsAPI.finish adds
        if let version {
            headers.add("ETag", ETag.format(version))
            if let request, ETag.noneMatchHits(request.headers, version) {
                return HTTPResponse(status: 304, headers: headers)
            }
        }
        headers.add("Content-Type", "application/json")
        return HTTPResponse(status: 200, headers: headers, bytes: Array((json + "\n").utf8))
    }
}
