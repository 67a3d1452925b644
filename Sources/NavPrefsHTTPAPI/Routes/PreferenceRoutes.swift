import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// UserDefaults over HTTP, semantics P-0..P-7:
/// - `GET /v1/profiles/{profile}/preferences` (`dictionaryRepresentation()`), `PATCH` (a JSON
///   Merge Patch, RFC 7396: several keys set and removed in one transaction, `setValuesForKeys`)
///   and `DELETE` (every stored value removed, `removePersistentDomain(forName:)`);
/// - `GET`/`PUT`/`DELETE /v1/profiles/{profile}/preferences/{key}`, with every getter of
///   UserDefaults as a typed read (`?as=integer`...), exactly as Foundation answers it.
///
/// A profile nobody wrote to reads as a fresh suite. Keys are any text Foundation accepts but
/// the empty one and NUL, percent-encoded in the path.
struct PreferenceRoutes: RouteCollection {
    let store: any Store
    let limits: PreferenceLimits
    /// Where a `PATCH`'s answer (every value of the profile) is rendered.
    let lane: LargeWorkLane

    static let collection = "/v1/profiles/{profile}/preferences"
    static let item = collection + "/{key}"

    var routes: [Route] {
        [
            Route(.get, Self.collection, .profile, .reads, list),
            Route(.patch, Self.collection, .profile, .writes, maxBodyBytes: Route.largeBody, patch),
            Route(.delete, Self.collection, .profile, .writes, removeAll),
            Route(.get, Self.item, .profile, .reads, read),
            Route(.put, Self.item, .profile, .writes, maxBodyBytes: 80 << 10, write),
            Route(.delete, Self.item, .profile, .writes, remove),
            // Who changed a key, and to what (``KeyHistory``).
            Route(.get, Self.item + "/history", .profile, .reads) { [store] request throws(APIError) in
                let key = try request.preferenceKey()
                return try KeyHistory.read(request, of: HistorySubject.of(key), key: key, store: store)
            },
        ]
    }

    private func list(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        return .reading(.preferences(of: profile), from: store, version: (.preferencesVersion(of: profile), request.http)) { snapshot in
            JSONResponse.make(Self.body(snapshot), version: snapshot.version, request: request.http)
        }
    }

    /// `PATCH` with a JSON Merge Patch (RFC 7396), applied to each member's value: an object
    /// merges into the key's value recursively (a `null` member removes at any depth), anything
    /// else replaces it, a top-level `null` removes the key; all in one transaction under one
    /// `If-Match` (the version of the whole set). Each key that changes logs its own event, in
    /// the order of the patch, committed together; the answer says what each changed.
    private func patch(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let object = try JSONBody.mergePatch(of: request.http)
        guard object.count <= limits.maxPatchMembers else {
            throw APIError(.tooManyPreferences, "A patch sets or removes at most \(limits.maxPatchMembers) keys, not \(object.count).",
                           extensions: ["limit": .integer(Int64(limits.maxPatchMembers))])
        }
        var updates: [PreferenceUpdate] = []
        for member in object {
            let key = try APIRequest.preferenceKey(member.key, pointer: "/" + JSONBody.pointerEscaped(member.key))
            if member.value != .null { try limits.checkPatch(member.value, for: key) }
            updates.append(PreferenceUpdate(key: key, value: member.value == .null ? nil : member.value))
        }
        let precondition = ETag.writePrecondition(from: request.http.headers)
        let write: StoreWrite<PreferencesChange>
        do {
            write = try .updatePreferences(updates, of: profile, if: precondition, maxValueBytes: limits.maxValueBytes)
        } catch {
            throw APIError(error)
        }
        return try IdempotentWrites.run(request, profile: profile, store: store, write, renderOn: lane) { change in
            JSONResponse.make(Self.body(change), version: change.version)
        }
    }

    /// `DELETE` of the whole set, `removePersistentDomain(forName:)`: every stored value removed in
    /// one transaction under one `If-Match` (the version of the whole set), answered as a `PATCH`
    /// removing each is; registered defaults stay and show again.
    private func removeAll(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let precondition = ETag.writePrecondition(from: request.http.headers)
        return try IdempotentWrites.run(request, profile: profile, store: store, .removeAllPreferences(of: profile, if: precondition),
                                        renderOn: lane) { change in
            JSONResponse.make(Self.body(change), version: change.version)
        }
    }

    /// What a `PATCH` changed, key by key as its events say it, and the whole set's version:
    /// never the profile's values, so the answer grows with the patch, not with the profile. A
    /// value set is the text the store holds, as it is (rendered off the writer, never decoded).
    static func body(_ change: PreferencesChange) -> JSONObjectBuilder {
        var body = JSONObjectBuilder()
        body.add("profile", change.profile.rawValue)
        var changes = "["
        for (index, change) in change.changes.enumerated() {
            if index > 0 { changes += "," }
            var entry = JSONObjectBuilder()
            entry.add("key", change.key.rawValue)
            switch change.kind {
            case .set(let json):
                entry.add("value", json: json)
            case .merged(let patch, let from):
                entry.add("patch", patch)
                entry.add("from", from.rawValue)
            case .removed(let source):
                entry.add("removed", true)
                entry.add("source", source.rawValue)
            }
            entry.add("version", change.version.rawValue)
            changes += entry.json
        }
        body.add("changes", json: changes + "]")
        body.add("version", change.version.rawValue)
        if let last = change.eventIDs.last { body.add("eventId", last) } else { body.addNull("eventId") }
        body.add("eventIds", JSONValue.array(change.eventIDs.map(JSONValue.integer)))
        body.add("changed", JSONValue.array(change.changedKeys.map { .string($0.rawValue) }))
        return body
    }

    private func read(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let key = try request.preferenceKey()
        let getter = try Self.getter(of: request.http)
        return .reading(.preference(key, of: profile), from: store) { slot in
            if let getter {
                // A typed read always answers, like UserDefaults' getters (P-1).
                var body = JSONObjectBuilder()
                body.add("key", key.rawValue)
                body.add("as", getter.rawValue)
                body.add("value", Self.representable(getter.read(slot.value)))
                body.add("source", slot.source.rawValue)
                return JSONResponse.make(body, version: slot.viewVersion, request: request.http)
            }
            guard let value = slot.value, let version = slot.version else {
                return APIError(.preferenceNotFound, "No value is stored or registered under '\(key.rawValue.prefix(80))'.")
                    .response(instance: request.http.path)
            }
            var body = Self.body(key, value: value, source: slot.source, version: version)
            body.add("lastChange", LastChangeJSON.value(slot.lastChange))
            return JSONResponse.make(body, version: version, request: request.http)
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
        let write: StoreWrite<PreferenceChange>
        do {
            write = try .setPreference(value, for: key, of: profile, if: precondition)
        } catch {
            throw APIError(error)
        }
        return try IdempotentWrites.run(request, profile: profile, store: store, write) { change in
            let version = change.slot.viewVersion
            var body = Self.body(key, value: change.slot.value ?? value, source: .stored, version: version)
            body.add("eventId", change.eventID.map(JSONValue.integer) ?? .null)
            var response = JSONResponse.make(body, version: version)
            if change.created { response.status = 201 }  // RFC 9110 9.3.4: PUT that creates
            return response
        }
    }

    /// `removeObject(forKey:)`: the registered default, if any, shows again (P-6); a key with
    /// nothing stored is left as it is, answered 200 with no event.
    private func remove(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let key = try request.preferenceKey()
        let precondition = ETag.writePrecondition(from: request.http.headers)
        return try IdempotentWrites.run(request, profile: profile, store: store, .removePreference(key, of: profile, if: precondition)) { change in
            var body = JSONObjectBuilder()
            body.add("key", key.rawValue)
            body.add("value", change.slot.value ?? .null)
            body.add("source", change.slot.source.rawValue)
            body.add("version", change.slot.viewVersion.rawValue)
            body.add("eventId", change.eventID.map(JSONValue.integer) ?? .null)
            return JSONResponse.make(body, version: change.slot.viewVersion)
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

    static func body(_ snapshot: PreferenceSnapshot) -> JSONObjectBuilder {
        var body = JSONObjectBuilder()
        body.add("profile", snapshot.profile.rawValue)
        body.add("values", JSONValue.object(snapshot.merged))
        body.add("version", snapshot.version.rawValue)
        return body
    }

    /// `?as=` names a getter of UserDefaults (`integer`, `stringArray`, ...), or is absent: the
    /// value as stored.
    static func getter(of request: HTTPRequest) throws(APIError) -> PreferenceGetter? {
        guard let name = request.queryValue("as") else { return nil }
        guard let getter = PreferenceGetter(rawValue: name) else {
            let names = PreferenceGetter.allCases.map(\.rawValue).joined(separator: ", ")
            throw APIError(.invalidQuery, "'as' names a getter of UserDefaults: one of \(names); not '\(name.prefix(40))'.")
        }
        return getter
    }

    /// A getter's answer as JSON can carry it: `float` and `double` answer ±infinity for a
    /// string such as `"1e400"` (or a double beyond Float's range), which JSON has no number
    /// for; they are sent as the strings `"Infinity"` and `"-Infinity"`.
    static func representable(_ value: JSONValue) -> JSONValue {
        guard case .number(let number) = value, number.isInfinite else { return value }
        return .string(number > 0 ? "Infinity" : "-Infinity")
    }
}

/// Bounds on what clients may store, each answered with a clear 4xx.
struct PreferenceLimits: Sendable {
    /// The largest value, as compact JSON.
    var maxValueBytes = 64 << 10
    /// The most registered defaults per profile.
    var maxDefaults = 1_000
    /// The most keys one PATCH may set or remove.
    var maxPatchMembers = 1_000

    /// What UserDefaults could store: `set(_:forKey:)` traps on `NSNull`, at the top level (a
    /// preference cannot be null) and nested in an array or a dictionary alike.
    func check(_ value: JSONValue, for key: PreferenceKey) throws(APIError) {
        try Self.checkDepth(value, for: key)
        let size = value.jsonText.utf8.count
        guard size <= maxValueBytes else {
            throw APIError(.valueTooLarge, "The value of '\(key.rawValue.prefix(80))' takes \(size) bytes as JSON; the limit is \(maxValueBytes).",
                           extensions: ["limit": .integer(Int64(maxValueBytes))])
        }
        guard !Self.containsNull(value) else {
            throw APIError(.invalidValue, "UserDefaults stores no null, also not inside an array or an object: '\(key.rawValue.prefix(80))' holds one.",
                           extensions: ["key": .string(key.rawValue)])
        }
    }

    /// The same for a merge patch of a value (RFC 7396): a `null` member of an object removes
    /// and is never stored, so only the nulls the patch would store (inside arrays, which
    /// replace whole) are refused. Those are the nulls left after merging into nothing: the
    /// target decides only which members the patch's objects merge into, never whether a null
    /// of the patch survives. The merged value's size is checked where it is made (the store).
    func checkPatch(_ patch: JSONValue, for key: PreferenceKey) throws(APIError) {
        try Self.checkDepth(patch, for: key)
        try check(MergePatch.apply(patch, to: nil) ?? .object(JSONObject()), for: key)
        let size = patch.jsonText.utf8.count
        guard size <= maxValueBytes else {
            throw APIError(.valueTooLarge, "The value of '\(key.rawValue.prefix(80))' takes \(size) bytes as JSON; the limit is \(maxValueBytes).",
                           extensions: ["limit": .integer(Int64(maxValueBytes))])
        }
    }

    /// One depth for every value (``JSONDepth/maxValueDepth``), so that every tool carries what
    /// the API accepts: events, pages, exports and the clients' parsers add their own levels.
    static func checkDepth(_ value: JSONValue, for key: PreferenceKey) throws(APIError) {
        let depth = JSONDepth.of(value)
        guard depth <= JSONDepth.maxValueDepth else {
            throw APIError.nestedTooDeeply("The value of '\(key.rawValue.prefix(80))' nests \(depth) levels deep", key: key)
        }
    }

    private static func containsNull(_ value: JSONValue) -> Bool {
        switch value {
        case .null: true
        case .array(let items): items.contains(where: containsNull)
        case .object(let object): object.contains { containsNull($0.value) }
        case .bool, .integer, .number, .string: false
        }
    }
}

extension APIRequest {
    /// The `{key}` path parameter (percent-decoded by the router), validated.
    func preferenceKey() throws(APIError) -> PreferenceKey {
        try Self.preferenceKey(parameter("key"), pointer: nil)
    }

    /// `text` as a preference key, or the 400 that says why it is not one.
    static func preferenceKey(_ text: String, pointer: String?) throws(APIError) -> PreferenceKey {
        do {
            return try PreferenceKey(text)
        } catch {
            throw APIError(.invalidPreferenceKey, "'\(text.prefix(80))' is not a valid preference key: \(error).",
                           extensions: pointer.map { ["pointer": .string($0)] } ?? [:])
        }
    }
}
