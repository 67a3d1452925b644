import Foundation

/// The writes of ``RemoteDefaults`` that wait for the server's answer (`profile.preferences.onServer`):
/// each sent at once with the version it was based on, and with an idempotency key, so that the
/// library can send it again when the answer is lost. They throw when the server cannot be
/// reached; the synchronous writes of ``RemoteDefaults`` queue instead.
public struct ServerDefaults: Sendable {
    let core: ProfileCore

    /// The version a write of `key` is based on (`nil`: the key has no value).
    private func version(forKey key: String) -> Int64? { core.mirror.read { state, _ in state.version(ofKey: key) } }

    /// `set(_:forKey:)`: stores `value` under `key`, if the key is still at the version the
    /// mirror knows (or still has no value). Answers the key's new version.
    /// - Parameter idempotencyKey: a key of the caller's (to retry across app launches, say);
    ///   one is made otherwise.
    /// - Throws: ``NavPrefsError/preconditionFailed(currentVersion:problem:)`` when another write
    ///   came first; ``NavPrefsError/refused(_:)`` for a value the key's view cannot take (422);
    ///   ``NavPrefsError/invalidArgument(_:)`` for a value with a `null` in it.
    @discardableResult
    public func set(_ value: JSON, forKey key: String, idempotencyKey: String? = nil) async throws(NavPrefsError) -> Int64 {
        guard !value.containsNull else { throw .invalidArgument("UserDefaults stores no null, also not inside an array or an object") }
        let answer = try await core.write("PUT", core.path + "/preferences/" + HTTPClient.segment(key), body: .object([.init("value", value)]),
                                          headers: condition(forKey: key), idempotencyKey: idempotencyKey)
        let body = try answer.json()
        guard let version = body["version"]?.int64Value, let stored = body["value"] else {
            throw .invalidResponse("a preference answer without value or version")
        }
        await core.applyAnswer(type: "preference", data: .object([.init("key", .string(key)), .init("value", stored), .init("version", .integer(version))]))
        return version
    }

    @discardableResult
    public func set(_ value: Int, forKey key: String) async throws(NavPrefsError) -> Int64 { try await set(.integer(Int64(value)), forKey: key) }
    @discardableResult
    public func set(_ value: Double, forKey key: String) async throws(NavPrefsError) -> Int64 {
        guard value.isFinite else { throw .invalidArgument("JSON has no number for \(value)") }
        return try await set(.number(value), forKey: key)
    }
    @discardableResult
    public func set(_ value: Float, forKey key: String) async throws(NavPrefsError) -> Int64 { try await set(Double(value), forKey: key) }
    @discardableResult
    public func set(_ value: Bool, forKey key: String) async throws(NavPrefsError) -> Int64 { try await set(.bool(value), forKey: key) }
    @discardableResult
    public func set(_ value: String, forKey key: String) async throws(NavPrefsError) -> Int64 { try await set(.string(value), forKey: key) }

    /// `removeObject(forKey:)`: deletes the stored value (a registered default shows again), if
    /// the key is still at the version the mirror knows. Removing a key with nothing stored
    /// changes nothing.
    public func removeObject(forKey key: String, idempotencyKey: String? = nil) async throws(NavPrefsError) {
        let answer = try await core.write("DELETE", core.path + "/preferences/" + HTTPClient.segment(key), headers: condition(forKey: key),
                                          idempotencyKey: idempotencyKey)
        let body = try answer.json()
        guard let version = body["eventId"]?.int64Value else { return }  // nothing was stored
        await core.applyAnswer(type: "preference", data: .object([
            .init("key", .string(key)), .init("removed", true), .init("value", body["value"] ?? .null), .init("version", .integer(version)),
        ]))
    }

    /// `register(defaults:)`: adds these defaults to the profile's (a default already
    /// registered under a key is replaced), if the defaults are still at the version the
    /// mirror knows. Defaults are kept with the profile: every device sees the same.
    public func register(defaults: [String: JSON], idempotencyKey: String? = nil) async throws(NavPrefsError) {
        guard !defaults.values.contains(where: \.containsNull) else { throw .invalidArgument("a default cannot be null") }
        let version = core.mirror.read { state, _ in state.defaultsVersion }
        let members = defaults.sorted { $0.key < $1.key }.map { JSON.Member($0.key, $0.value) }
        let answer = try await core.write("PATCH", core.path + "/defaults", body: .object(members), headers: [("If-Match", "\"\(version)\"")],
                                          contentType: "application/merge-patch+json", idempotencyKey: idempotencyKey)
        let body = try answer.json()
        guard let values = body["values"], let newVersion = body["version"]?.int64Value else {
            throw .invalidResponse("a defaults answer without values or version")
        }
        await core.applyAnswer(type: "preference", data: .object([.init("defaults", values), .init("version", .integer(newVersion))]))
    }

    /// Sets and removes several keys in one transaction (`setValuesForKeys`; `nil` removes), if
    /// none of the profile's values or defaults changed since the version the mirror knows.
    /// Each key that changes logs its own event, in the order given.
    public func setValues(_ values: KeyValuePairs<String, JSON?>, idempotencyKey: String? = nil) async throws(NavPrefsError) {
        guard !values.contains(where: { $0.value?.containsNull == true }) else {
            throw .invalidArgument("UserDefaults stores no null inside a value; nil removes a key")
        }
        let version = core.mirror.read { state, _ in state.preferencesVersion }
        let patch = JSON.object(values.map { JSON.Member($0.key, $0.value ?? .null) })
        let answer = try await core.write("PATCH", core.path + "/preferences", body: patch, headers: [("If-Match", "\"\(version)\"")],
                                          contentType: "application/merge-patch+json", idempotencyKey: idempotencyKey)
        // Each change as its event says it: a value, a merge patch from a version, or a removal.
        for change in try answer.json()["changes"]?.arrayValue ?? [] {
            await core.applyAnswer(type: "preference", data: change)
        }
    }

    /// `If-Match` with the key's version, or `If-None-Match: *` when it has no value.
    private func condition(forKey key: String) -> [(String, String)] {
        guard let version = version(forKey: key) else { return [("If-None-Match", "*")] }
        return [("If-Match", "\"\(version)\"")]
    }
}
