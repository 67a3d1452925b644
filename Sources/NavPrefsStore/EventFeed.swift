public import NavPrefsCore
import Synchronization

/// Where a store announces committed events, in commit order, to whoever streams them.
///
/// A store calls ``publish(_:)`` after each commit and before it acknowledges the writes, so an
/// event reaches every observer before its writer hears back (N-1, like NotificationCenter's
/// synchronous post). Observers must not block: they queue the events and return.
public final class EventFeed: Sendable {
    public typealias Observer = @Sendable ([LoggedEvent]) -> Void

    private let observers = Mutex<[Observer]>([])

    public init() {}

    /// Adds an observer for every event committed from now on.
    public func observe(_ observer: @escaping Observer) {
        observers.withLock { $0.append(observer) }
    }

    /// Hands `events` (committed, in commit order) to every observer.
    public func publish(_ events: [LoggedEvent]) {
        guard !events.isEmpty else { return }
        let current = observers.withLock { $0 }
        for observer in current { observer(events) }
    }
}

/// The ids a profile's event log can serve.
public struct EventLogBounds: Sendable, Hashable {
    /// The oldest id still kept; `latest + 1` when none is kept.
    public let earliest: Int64
    /// The newest id issued; 0 before the first event.
    public let latest: Int64

    public init(earliest: Int64, latest: Int64) {
        self.earliest = earliest
        self.latest = latest
    }
}
