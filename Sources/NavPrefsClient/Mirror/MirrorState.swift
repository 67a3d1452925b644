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
    var keys: [String: Key] = [:]
    /// The registered defaults, in registration order.
    var registered: [JSON.Member] = []
    var sessions: [Session] = []

    /// What `object(forKey:)` answers: the stored value, else the registered default.
    func value(forKey key: String) -> JSON? {
        keys[key]?.stored ?? registered.first { $0.name == key }?.value
    }

    /// Every key with a value, stored over registered.
    var merged: [String: JSON] {
        var values: [String: JSON] = [:]
        for member in registered { values[member.name] = member.value }
        for (key, state) in keys { if let stored = state.stored { values[key] = stored } }
        return values
    }

    /// The version `If-Match` must name to change `key` (`nil`: the key has no value, so the
    /// write is sent with `If-None-Match: *`), as the server computes it: the stored value's
    /// write, else the later of its removal and the last change of the defaults.
    func version(ofKey key: String) -> Int64? {
        if let state = keys[key], state.stored != nil { return state.version }
        guard registered.contains(where: { $0.name == key }) else { return nil }
        return max(keys[key]?.version ?? 0, defaultsVersion)
    }

    /// Where `key`'s value comes from: `stored`, `registered` or `absent`.
    func source(ofKey key: String) -> String {
        if keys[key]?.stored != nil { return "stored" }
        return registered.contains { $0.name == key } ? "registered" : "absent"
    }
}
