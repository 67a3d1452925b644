import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// Registered defaults (`register(defaults:)`), semantics P-5/P-6:
/// `GET`/`PUT /v1/profiles/{profile}/defaults`, an object of key to value.
///
/// Unlike UserDefaults' registration domain, which lives in memory and is re-registered at every
/// launch, these are stored with the profile: a service has no launch to re-register at, and
/// every client of a profile must see the same fallbacks. `PUT` replaces the whole set.
struct DefaultsRoutes {
    let store: any Store
    let limits: PreferenceLimits

    static let resource = "/v1/profiles/{profile}/defaults"

    var routes: [Route] {
        [
            Route("GET", Self.resource, read),
            Route("PUT", Self.resource, write),
        ]
    }

    private func read(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let store = self.store
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let defaults = try await store.defaults(of: profile)
            return JSONResponse.make(json: JSONValue.object(defaults.values).jsonText, version: defaults.version, request: request.http)
        }
    }

    private func write(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        guard !request.http.body.isEmpty else { throw APIError(.invalidBody, "The body is an object of key to default value.") }
        try JSONBody.requireJSONContentType(request.http.headers["Content-Type"])
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(request.http.body)
        } catch {
            throw APIError(.malformedJSON, "The body is not valid JSON: \(error).")
        }
        guard case .object(let defaults) = parsed else {
            throw APIError(.invalidBody, "The body must be an object of key to default value, not \(parsed.typeName).")
        }
        guard defaults.count <= limits.maxDefaults else {
            throw APIError(.tooManyPreferences, "At most \(limits.maxDefaults) defaults can be registered, not \(defaults.count).",
                           extensions: ["limit": .integer(Int64(limits.maxDefaults))])
        }
        for member in defaults {
            let key: PreferenceKey
            do {
                key = try PreferenceKey(member.key)
            } catch {
                throw APIError(.invalidPreferenceKey, "'\(member.key.prefix(80))' is not a valid preference key: \(error).")
            }
            guard member.value != .null else {
                throw APIError(.invalidBody, "The default of '\(key)' cannot be null.")
            }
            try limits.check(member.value, for: key)
        }
        let precondition = ETag.writePrecondition(from: request.http.headers)
        let store = self.store
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let change = try await store.setDefaults(defaults, of: profile, if: precondition)
            return JSONResponse.make(json: JSONValue.object(change.state.values).jsonText, version: change.state.version)
        }
    }
}
