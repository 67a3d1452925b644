public import Foundation

/// A profile's preferences, read like `UserDefaults` and written to the server.
///
/// Reads are synchronous and work offline: they answer from the local mirror, a real
/// `UserDefaults(suiteName:)` that the event stream keeps in step, so every getter is
/// Foundation's own, with Foundation's coercions (`integer(forKey:)` of `"42"` is 42). A key the
/// profile has no value for answers what the getter answers for a missing key (0, `false`,
/// `nil`), whatever else the suite's search list holds.
///
/// Writes are `UserDefaults`' own: synchronous, in the mirror at once, queued in a durable
/// outbox and sent in order whenever the server can be reached (`RemoteDefaults+LocalWrites`).
/// ``onServer`` has the forms that wait for the server's answer.
public final class RemoteDefaults: Sendable {
    /// Posted (on the profile's notification center, `object` this, `userInfo["keys"]` the keys)
    /// after values changed, here or on another device: `UserDefaults.didChangeNotification`'s
    /// counterpart, which says which keys, `userInfo["fromThisDevice"]` (`Bool`) whether this
    /// device made the change, and `userInfo["author"]` (``ChangeAuthor``) who did, when known.
    public static let didChangeNotification = Notification.Name("NavPrefsRemoteDefaultsDidChange")

    let core: ProfileCore

    init(core: ProfileCore) { self.core = core }

    /// The writes that wait for the server's answer and throw when it cannot be reached (each
    /// with `If-Match` of the version the mirror holds), for callers who want the server's word
    /// before going on.
    public var onServer: ServerDefaults { ServerDefaults(core: core) }

    /// The name of the `UserDefaults` suite that mirrors the profile (read it there too, but
    /// never write it: the next event or reload replaces it).
    public var suiteName: String { core.mirror.suiteName }

    // MARK: Reads (UserDefaults' getters)

    /// Runs `getter` on the mirror suite when the profile has a value for `key`, else answers
    /// `absent` (``PreferenceMirror/foundationRead(_:_:)``: the key it gets may be another).
    private func read<T>(_ key: String, absent: T, _ getter: (UserDefaults, String) -> T) -> T {
        core.mirror.foundationRead(key, getter) ?? absent
    }

    public func object(forKey key: String) -> Any? { read(key, absent: nil) { $0.object(forKey: $1) } }
    public func string(forKey key: String) -> String? { read(key, absent: nil) { $0.string(forKey: $1) } }
    public func array(forKey key: String) -> [Any]? { read(key, absent: nil) { $0.array(forKey: $1) } }
    public func dictionary(forKey key: String) -> [String: Any]? { read(key, absent: nil) { $0.dictionary(forKey: $1) } }
    public func stringArray(forKey key: String) -> [String]? { read(key, absent: nil) { $0.stringArray(forKey: $1) } }
    public func integer(forKey key: String) -> Int { read(key, absent: 0) { $0.integer(forKey: $1) } }
    public func float(forKey key: String) -> Float { read(key, absent: 0) { $0.float(forKey: $1) } }
    public func double(forKey key: String) -> Double { read(key, absent: 0) { $0.double(forKey: $1) } }
    public func bool(forKey key: String) -> Bool { read(key, absent: false) { $0.bool(forKey: $1) } }
    public func url(forKey key: String) -> URL? { read(key, absent: nil) { $0.url(forKey: $1) } }

    /// The value exactly as the profile holds it (`1` and `1.0` apart), `nil` when it has none.
    public func value(forKey key: String) -> JSON? { core.mirror.read { state, _ in state.value(forKey: key) } }

    /// Every key with a value, stored over registered, as `UserDefaults` answers for a suite
    /// (without the global and argument domains).
    public func dictionaryRepresentation() -> [String: Any] {
        core.mirror.read { state, _ in state.merged.mapValues(\.propertyListValue) }
    }

    /// The version a write of `key` is based on (`nil`: the key has no value).
    public func version(forKey key: String) -> Int64? { core.mirror.read { state, _ in state.version(ofKey: key) } }

    /// Who made the change `key`'s value comes from (its write, its removal, or the defaults'),
    /// as the server recorded it: the token's id and label, and the device. This device while
    /// its own write to the key is queued; `nil` when not known (no value, or a change made
    /// before the server recorded authors).
    public func author(forKey key: String) -> ChangeAuthor? {
        let me = core.http.author
        return core.mirror.read { state, _ in state.author(ofKey: key, me: me) }
    }

    /// Whether `key`'s value comes from this device's own change (see ``author(forKey:)``).
    public func isFromThisDevice(forKey key: String) -> Bool {
        author(forKey: key)?.isSameWriter(as: core.http.author) ?? false
    }

    /// Whether `key`'s value is `stored`, `registered` (a default shows) or `absent`.
    public func source(forKey key: String) -> String { core.mirror.read { state, _ in state.source(ofKey: key) } }

    /// The registered defaults, as the profile keeps them (every client sees the same).
    public var registeredDefaults: [String: JSON] {
        core.mirror.read { state, _ in Dictionary(state.registered.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }) }
    }

    // MARK: Observing

    /// The changes of `key` from now on, from this device's writes and from the stream.
    public func changes(forKey key: String) -> AsyncStream<PreferenceChange> { core.announcer.changes(of: key) }

    /// The changes of every key from now on.
    public func changes() -> AsyncStream<PreferenceChange> { core.announcer.changes(of: nil) }
}
