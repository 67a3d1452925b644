import NavPrefsCore
import Synchronization

/// Each profile's counter as it was last read, in bytes: the body and the ETag of one version,
/// built once per change and sent as they are by every read of an unchanged counter (the hot
/// read path: building them again showed in profiles).
///
/// Keyed by profile, checked against the state read (version and value): a stale entry is never
/// sent, only rebuilt. At most ``capacity`` profiles; beyond, it starts over.
final class CounterRepresentations: Sendable {
    struct Representation: Sendable {
        let version: Version
        let value: Int64
        let etag: String
        let body: [UInt8]
    }

    static let capacity = 10_000
    private let latest = Mutex<[ProfileName: Representation]>([:])

    /// The representation of `state`, from the memo when it holds that very state.
    func representation(of state: CounterState) -> Representation {
        if let known = latest.withLock({ $0[state.profile] }), known.version == state.version, known.value == state.counter.value {
            return known
        }
        let built = Self.build(state)
        latest.withLock { latest in
            if latest.count >= Self.capacity { latest.removeAll(keepingCapacity: true) }
            latest[state.profile] = built
        }
        return built
    }

    /// `{"profile":"p","value":5,"stringValue":"5","version":7}` and its newline; profile
    /// names need no escaping.
    static func build(_ state: CounterState) -> Representation {
        let value = state.counter.value
        let body = "{\"profile\":\"\(state.profile.rawValue)\",\"value\":\(value),\"stringValue\":\"\(value)\",\"version\":\(state.version.rawValue)}\n"
        return Representation(version: state.version, value: value, etag: ETag.format(state.version), body: Array(body.utf8))
    }
}
