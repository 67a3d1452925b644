import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// Registered defaults (`register(defaults:)`), semantics P-5/P-6:
/// `GET /v1/profiles/{profile}/defaults`, `PUT` (replaces the whole set) and `PATCH` (merges, as
/// `register(defaults:)` does: a JSON Merge Patch, RFC 7396, so a `null` member unregisters that
/// default, and an object member merges into that default recursively).
///
/// Unlike UserDefaults' registration domain, which lives in memory and is re-registered at every
/// launch, these are stored with the profile: a service has no launch to re-register at, and
/// every client of a profile must see the same fallbacks.
struct DefaultsRoutes: RouteCollection {
    let store: any Store
    let limits: PreferenceLimits
    /// Where a write's answer (every default of the profile) is rendered.
    let lane: LargeWorkLane

    static let resource = "/v1/profiles/{profile}/defaults"

    var routes: [Route] {
        [
            Route(.get, Self.resource, .profile, .reads, read),
            Route(.put, Self.resource, .profile, .writes, maxBodyBytes: Route.largeBody) { request throws(APIError) in try write(request, merging: false) },
            Route(.patch, Self.resource, .profile, .writes, maxBodyBytes: Route.largeBody) { request throws(APIError) in try write(request, merging: true) },
        ]
    }

    private func read(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        return .reading(.defaults(of: profile), from: store, version: (.defaultsVersion(of: profile), request.http)) { defaults in
            JSONResponse.make(Self.body(defaults), version: defaults.version, request: request.http)
        }
    }

    private func write(_ request: APIRequest, merging: Bool) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let defaults = try JSONBody.mergePatch(of: request.http)
        guard defaults.count <= limits.maxDefaults else {
            throw APIError(.tooManyPreferences, "At most \(limits.maxDefaults) defaults can be registered, not \(defaults.count).",
                           extensions: ["limit": .integer(Int64(limits.maxDefaults))])
        }
        for member in defaults {
            let key = try APIRequest.preferenceKey(member.key, pointer: "/" + JSONBody.pointerEscaped(member.key))
            if member.value == .null {
                guard merging else {
                    throw APIError(.invalidBody, "The default of '\(key.rawValue.prefix(80))' cannot be null; PATCH with null unregisters one.")
                }
                continue
            }
            if merging { try limits.checkPatch(member.value, for: key) } else { try limits.check(member.value, for: key) }
        }
        let precondition = ETag.writePrecondition(from: request.http.headers)
        let write: StoreWrite<DefaultsChange>
        do {
            write = try .setDefaults(defaults, merging: merging, of: profile, if: precondition, maxValueBytes: limits.maxValueBytes)
        } catch {
            throw APIError(error)
        }
        return try IdempotentWrites.run(request, profile: profile, store: store, write, renderOn: lane) { change in
            var body = Self.body(change.state)
            body.add("eventId", change.eventID)
            return JSONResponse.make(body, version: change.state.version)
        }
    }

    /// `{"profile": "ana", "values": {...}, "version": 7}`: the defaults in registration order.
    private static func body(_ state: DefaultsState) -> JSONObjectBuilder {
        var body = JSONObjectBuilder()
        body.add("profile", state.profile.rawValue)
        body.add("values", JSONValue.object(state.values))
        body.add("version", state.version.rawValue)
        return body
    }
}
