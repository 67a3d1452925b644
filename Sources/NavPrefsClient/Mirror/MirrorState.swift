import Foundation

/// What the library knows of a profile, enough to answer every read offline and to send every
/// write with the version it was based on. Persisted as one JSON text (``json``), so that the
/// values and the last event id they correspond to are always written together.
struct MirrorState: Sendable, Equatable {
    /// One key as the mirror knows it.
    struct Key: Sendable, Equatable {
        /// The stored value; `nil` when only a default (or nothing) shows.
        var stored: JSON?
        /// The version of the last change that touched the key: its write, or its removal.
        var version: Int64
        /// Who made that change, when the server said (its event, or the state's `lastChange`).
        var author: ChangeAuthor? = nil
    }

    /// One of the profile's navigation sessions, as its list shows it.
    struct Session: Sendable, Equatable {
        var id: String
        var label: String?
        var version: Int64
        var depth: Int
        var root: String
        var top: String
        /// As the server states them (RFC 3339); `nil` for a session known from its `create`
        /// event only, which carries no times.
        var createdAt: String?
        var updatedAt: String?
    }

    var server: String
    var profile: String
    /// Every event up to this id is applied (0: none yet).
    var lastEventID: Int64 = 0
    /// Whether the state came from the server at all (a fresh mirror knows nothing yet).
    var loaded = false
    /// The version of the whole set of values and defaults (a multi-key write's `If-Match`).
    var preferencesVersion: Int64 = 0
    var defaultsVersion: Int64 = 0
    /// Who last changed the registered defaults, when the server said.
    var defaultsAuthor: ChangeAuthor?
    /// By their bytes, as the server keeps them (``KeyBytes``): `café` NFC and NFD are two keys.
    var keys: [KeyBytes: Key] = [:]
    /// The registered defaults, in registration order.
    var registered: [JSON.Member] = []
    var sessions: [Session] = []
    /// The writes queued in the outbox, not answered yet, in order (by idempotency key): shown on
    /// top of the server's state. Not persisted here: the outbox is their durable record.
    var pending: [(id: String, effect: WriteEffect)] = []

    /// What `object(forKey:)` answers: the server's value with the queued writes on top.
    func value(forKey key: String) -> JSON? {
        guard !pending.isEmpty else { return serverValue(forKey: key) }
        let registered = registeredValue(forKey: key)
        var stored = keys[KeyBytes(key)]?.stored
        for (_, effect) in pending { stored = effect.apply(toStored: stored, key: key, registered: registered) }
        return stored ?? registered
    }

    /// What the server holds: the stored value, else the registered default.
    func serverValue(forKey key: String) -> JSON? {
        keys[KeyBytes(key)]?.stored ?? registered.first { $0.name.sameBytes(as: key) }?.value
    }

    /// Whether the mirror holds another key that Swift's `String` calls equal to `key` (`café`
    /// NFC and NFD): a `UserDefaults` suite on Linux keeps one entry for both.
    func hasCanonicalTwin(of key: String) -> Bool {
        func twin(_ name: String) -> Bool { name == key && !name.sameBytes(as: key) }
        return keys.keys.contains { twin($0.string) } || registered.contains { twin($0.name) }
            || pending.contains { $0.effect.keys(registered: []).contains(where: twin) }
    }

    /// The default registered for `key`, queued registrations included.
    func registeredValue(forKey key: String) -> JSON? {
        for (_, effect) in pending.reversed() {
            if case .defaults(let assignments) = effect, let assignment = assignments.last(where: { $0.key.sameBytes(as: key) }) {
                return assignment.value
            }
        }
        return registered.first { $0.name.sameBytes(as: key) }?.value
    }

    /// Every key with a value, stored over registered, queued writes on top; two spellings of
    /// one text (`café` NFC and NFD) are two keys.
    var mergedByBytes: [KeyBytes: JSON] {
        var names = Set(registered.map { KeyBytes($0.name) }).union(keys.keys)
        for (_, effect) in pending { names.formUnion(effect.keys(registered: []).map(KeyBytes.init)) }
        var values: [KeyBytes: JSON] = [:]
        for name in names { if let value = value(forKey: name.string) { values[name] = value } }
        return values
    }

    /// ``mergedByBytes`` as a `[String: JSON]`, for `dictionaryRepresentation()` and the values
    /// suite: a `String` dictionary merges canonically equivalent keys, so of two such spellings
    /// only the one whose bytes sort last shows there.
    var merged: [String: JSON] {
        // Last in byte order first: a duplicate keeps the first's spelling and value together.
        Dictionary(mergedByBytes.sorted { $1.key < $0.key }.map { ($0.key.string, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    static func == (lhs: MirrorState, rhs: MirrorState) -> Bool {
        lhs.server == rhs.server && lhs.profile == rhs.profile && lhs.lastEventID == rhs.lastEventID && lhs.loaded == rhs.loaded
            && lhs.preferencesVersion == rhs.preferencesVersion && lhs.defaultsVersion == rhs.defaultsVersion
            && lhs.defaultsAuthor == rhs.defaultsAuthor && lhs.keys == rhs.keys
            && lhs.registered == rhs.registered && lhs.sessions == rhs.sessions
            && lhs.pending.map(\.id) == rhs.pending.map(\.id) && lhs.pending.map(\.effect) == rhs.pending.map(\.effect)
    }

    /// The version `If-Match` must name to change `key` (`nil`: the key has no value, so the
    /// write is sent with `If-None-Match: *`), as the server computes it: the stored value's
    /// write, else the later of its removal and the last change of the defaults.
    func version(ofKey key: String) -> Int64? {
        let bytes = KeyBytes(key)
        if let state = keys[bytes], state.stored != nil { return state.version }
        guard registered.contains(where: { $0.name.sameBytes(as: key) }) else { return nil }
        return max(keys[bytes]?.version ?? 0, defaultsVersion)
    }

    /// Who made the change the value of `key` comes from, as the server recorded it (``version(ofKey:)``'s
    /// change): the stored value's write, else the later of its removal and the defaults' last
    /// change; `me` while a write of this device to it is queued. `nil` when not known.
    func author(ofKey key: String, me: ChangeAuthor) -> ChangeAuthor? {
        if pending.contains(where: { $0.effect.keys(registered: registered.map(\.name)).contains { $0.sameBytes(as: key) } }) { return me }
        let state = keys[KeyBytes(key)]
        if let state, state.stored != nil || state.version >= defaultsVersion { return state.author }
        return registered.contains { $0.name.sameBytes(as: key) } ? defaultsAuthor : nil
    }

    /// Where `key`'s value comes from: `stored`, `registered` or `absent`.
    func source(ofKey key: String) -> String {
        if keys[KeyBytes(key)]?.stored != nil || (value(forKey: key) != nil && value(forKey: key) != registeredValue(forKey: key)) {
            return "stored"
        }
        return registered.contains { $0.name.sameBytes(as: key) } ? "registered" : "absent"
    }
}
