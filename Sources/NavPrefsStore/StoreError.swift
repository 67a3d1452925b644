public import NavPrefsCore

/// Why a store operation failed. The HTTP layer maps each case to one status.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// The profile has never been written to (and is not `default`).
    case profileNotFound(ProfileName)
    /// `If-Match` did not admit the current version (`nil`: the resource does not exist).
    case preconditionFailed(current: Version?)
    /// The counter operation would leave Int64; nothing changed.
    case counter(CounterError)
    /// The value would break the typed view of a well-known key.
    case invalidValue(WellKnownValueError)
    /// A merge (RFC 7396) would leave a value larger than allowed; nothing changed.
    case valueTooLarge(key: PreferenceKey, bytes: Int, limit: Int)
    /// The profile already stores as many keys as allowed.
    case tooManyPreferences(limit: Int)
    /// No session with this id in the profile.
    case sessionNotFound(SessionID)
    /// The profile already has as many sessions as allowed.
    case tooManySessions(limit: Int)
    /// The write would make the profile hold more than its quota (``StoreLimits/profileQuotaBytes``);
    /// `usage` is what it would have held. Nothing changed.
    case quotaExceeded(quota: Int, usage: Int)
    /// The navigation rules refuse the change (UIKit's exceptions, limits); nothing changed.
    case navigation(NavigationError)
    /// The storage cannot serve now (locked, full, unreachable); retrying later may work.
    case unavailable(reason: String)
    /// The stored data is damaged.
    case corrupted(reason: String)
    /// The store was closed.
    case closed
    /// A bug: a state the store does not expect.
    case `internal`(reason: String)

    public var description: String {
        switch self {
        case .profileNotFound(let profile): "profile '\(profile)' not found"
        case .preconditionFailed(let current): "precondition failed (current version \(current.map(String.init(describing:)) ?? "none"))"
        case .counter(let error): "counter: \(error)"
        case .invalidValue(let error): error.description
        case .valueTooLarge(let key, let bytes, let limit): "the merged value of '\(key)' would take \(bytes) bytes (limit \(limit))"
        case .tooManyPreferences(let limit): "the profile already stores \(limit) keys"
        case .sessionNotFound(let id): "no session '\(id)'"
        case .tooManySessions(let limit): "the profile already has \(limit) sessions"
        case .quotaExceeded(let quota, let usage): "the write would make the profile hold \(usage) bytes, over its quota of \(quota)"
        case .navigation(let error): error.description
        case .unavailable(let reason): "storage unavailable: \(reason)"
        case .corrupted(let reason): "storage corrupted: \(reason)"
        case .closed: "the store is closed"
        case .internal(let reason): "internal storage error: \(reason)"
        }
    }
}
