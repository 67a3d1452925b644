public import Foundation

/// `UserDefaults`' writes: synchronous, in the mirror at once (getters answer the new value,
/// ``RemoteDefaults/didChangeNotification`` and the change streams fire), recorded in the
/// durable outbox before the call returns, and sent in order whenever the server can be reached,
/// across relaunches. Nothing to await and nothing to catch; the answer is there for whoever
/// wants it (``PendingWrite/confirmed()``).
extension RemoteDefaults {
    /// Posted when a ``WritePolicy/basedOnWhatISaw`` write was overtaken by another device's:
    /// the mirror holds the server's value again. `userInfo`: `keys` (`[String]`), `mine` and
    /// `theirs` (`[String: Any]`, a key without a value absent), `idempotencyKey`.
    public static let conflictNotification = Notification.Name("NavPrefsWriteConflict")

    /// Posted when the server refused a queued write for good (a 4xx such as a value the key
    /// cannot take): its effect left the mirror. `userInfo`: `keys`, `error` (``NavPrefsError``),
    /// `idempotencyKey`.
    public static let writeRejectedNotification = Notification.Name("NavPrefsWriteRejected")

    /// `set(_:forKey:)`: stores `value` under `key`.
    /// - Parameter policy: ``WritePolicy/lastWriterWins`` (`UserDefaults`' behaviour) or
    ///   ``WritePolicy/basedOnWhatISaw`` (only if nobody changed the key since this device's
    ///   mirror saw it).
    @discardableResult
    public func set(_ value: JSON, forKey key: String, policy: WritePolicy = .lastWriterWins) -> PendingWrite {
        guard !value.containsNull else { return PendingWrite(refused: .invalidArgument("UserDefaults stores no null, also not inside an array or an object")) }
        return core.enqueue(OutboxEntry(method: "PUT", path: preferencePath(key), conditions: condition(forKey: key, policy),
                                        body: .object([.init("value", value)]), effect: .values([.init(key: key, value: value)]), policy: policy))
    }

    @discardableResult
    public func set(_ value: Int, forKey key: String, policy: WritePolicy = .lastWriterWins) -> PendingWrite {
        set(.integer(Int64(value)), forKey: key, policy: policy)
    }

    @discardableResult
    public func set(_ value: Double, forKey key: String, policy: WritePolicy = .lastWriterWins) -> PendingWrite {
        guard value.isFinite else { return PendingWrite(refused: .invalidArgument("JSON has no number for \(value)")) }
        return set(.number(value), forKey: key, policy: policy)
    }

    @discardableResult
    public func set(_ value: Float, forKey key: String, policy: WritePolicy = .lastWriterWins) -> PendingWrite {
        set(Double(value), forKey: key, policy: policy)
    }

    @discardableResult
    public func set(_ value: Bool, forKey key: String, policy: WritePolicy = .lastWriterWins) -> PendingWrite {
        set(.bool(value), forKey: key, policy: policy)
    }

    @discardableResult
    public func set(_ value: String, forKey key: String, policy: WritePolicy = .lastWriterWins) -> PendingWrite {
        set(.string(value), forKey: key, policy: policy)
    }

    /// `removeObject(forKey:)`: deletes the stored value (a registered default shows again).
    @discardableResult
    public func removeObject(forKey key: String, policy: WritePolicy = .lastWriterWins) -> PendingWrite {
        core.enqueue(OutboxEntry(method: "DELETE", path: preferencePath(key), conditions: condition(forKey: key, policy), body: nil,
                                 effect: .values([.init(key: key, value: nil)]), policy: policy))
    }

    /// `setValuesForKeys`: sets and removes (`nil`) several keys in one transaction on the server.
    /// With ``WritePolicy/basedOnWhatISaw``, only if none of the profile's values changed since.
    @discardableResult
    public func setValues(_ values: KeyValuePairs<String, JSON?>, policy: WritePolicy = .lastWriterWins) -> PendingWrite {
        guard !values.contains(where: { $0.value?.containsNull == true }) else {
            return PendingWrite(refused: .invalidArgument("UserDefaults stores no null inside a value; nil removes a key"))
        }
        // A dictionary replaces the key's value, as in UserDefaults: the patch is computed
        // against what the mirror holds (the server merges objects at every depth, RFC 7396).
        let (version, body) = core.mirror.read { state, _ in
            (state.preferencesVersion, JSON.object(values.map { pair in
                JSON.Member(pair.key, pair.value.map { JSON.mergePatch(from: state.value(forKey: pair.key), to: $0) } ?? .null)
            }))
        }
        return core.enqueue(OutboxEntry(method: "PATCH", path: core.path + "/preferences", contentType: "application/merge-patch+json",
                                        conditions: policy == .basedOnWhatISaw ? [("If-Match", "\"\(version)\"")] : [],
                                        body: body,
                                        effect: .values(values.map { WriteEffect.Assignment(key: $0.key, value: $0.value) }), policy: policy))
    }

    /// `register(defaults:)`: adds these defaults to the profile's (every device sees them).
    @discardableResult
    public func register(defaults: [String: JSON]) -> PendingWrite {
        guard !defaults.values.contains(where: \.containsNull) else { return PendingWrite(refused: .invalidArgument("a default cannot be null")) }
        let sorted = defaults.sorted { $0.key < $1.key }
        // A registered dictionary replaces the one registered before (the server would merge).
        let body = core.mirror.read { state, _ in
            JSON.object(sorted.map { JSON.Member($0.key, JSON.mergePatch(from: state.registeredValue(forKey: $0.key), to: $0.value)) })
        }
        return core.enqueue(OutboxEntry(method: "PATCH", path: core.path + "/defaults", contentType: "application/merge-patch+json",
                                        body: body,
                                        effect: .defaults(sorted.map { WriteEffect.Assignment(key: $0.key, value: $0.value) }),
                                        policy: .lastWriterWins))
    }

    private func preferencePath(_ key: String) -> String { core.path + "/preferences/" + HTTPClient.segment(key) }

    /// `If-Match` with the key's version the mirror saw, or `If-None-Match: *` when it had no
    /// value; nothing for ``WritePolicy/lastWriterWins``.
    private func condition(forKey key: String, _ policy: WritePolicy) -> [(String, String)] {
        guard policy == .basedOnWhatISaw else { return [] }
        guard let version = core.mirror.read({ state, _ in state.version(ofKey: key) }) else { return [("If-None-Match", "*")] }
        return [("If-Match", "\"\(version)\"")]
    }
}
