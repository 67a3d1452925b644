public import NavPrefsCore
import Foundation
import Synchronization

/// The boundary between a store and whoever streams its events: the store publishes committed
/// events here, in commit order, before it acknowledges their writes; each subscription queues
/// them until its consumer takes them on a thread of its own.
///
/// Publishing only appends to queues, so a store's writer never runs a consumer's code (the
/// HTTP layer's streams) and never waits for it: semantics N-1 holds as "enqueued for every
/// subscriber, in order, before the write returns".
public final class EventFeed: Sendable {
    private let subscriptions = Mutex<[FeedSubscription]>([])

    public init() {}

    /// A queue of every event published from now on, while `wanted` answers `true`.
    ///
    /// - Parameter wanted: asked at each publish, before anything is queued; `false` drops the
    ///   events for this subscription (a hub with no stream open: its thread is not woken for
    ///   every commit). Only safe for a consumer that reads the event log after it starts
    ///   wanting events, as a new stream replays from its `Last-Event-ID`: an event dropped
    ///   was committed before `wanted` turned `true`, so that read finds it.
    public func subscribe(wanted: @escaping @Sendable () -> Bool = { true }) -> FeedSubscription {
        let subscription = FeedSubscription(wanted: wanted)
        subscriptions.withLock { $0.append(subscription) }
        return subscription
    }

    /// Hands `events` (committed, in commit order) to every subscription.
    public func publish(_ events: [LoggedEvent]) {
        guard !events.isEmpty else { return }
        let current = subscriptions.withLock { subscriptions in
            subscriptions.removeAll { $0.isCancelled }
            return subscriptions
        }
        for subscription in current { subscription.enqueue(events) }
    }
}

/// One consumer's queue of a feed's events: a ``JobQueue`` of events, which one thread of the
/// consumer's empties at each wake-up.
public final class FeedSubscription: Sendable {
    private let queue = JobQueue<LoggedEvent>()
    private let wanted: @Sendable () -> Bool

    fileprivate init(wanted: @escaping @Sendable () -> Bool) {
        self.wanted = wanted
    }

    /// Wakes the consumer only when its queue was empty, after unlocking (``JobQueue/submit(contentsOf:)``):
    /// a consumer woken while the lock is still held blocks on it at once, and on a single core
    /// the publishing writer then waits for that consumer (`perf record -e sched:sched_switch`
    /// showed this ping-pong on every commit).
    fileprivate func enqueue(_ events: [LoggedEvent]) {
        guard wanted() else { return }
        _ = queue.submit(contentsOf: events)
    }

    fileprivate var isCancelled: Bool { queue.isClosed }

    /// Waits until events are queued and takes all of them, in order; `nil` once cancelled.
    /// Blocks the calling thread: call it from a thread of the consumer's own.
    public func next() -> [LoggedEvent]? { queue.takeAll() }

    /// Takes whatever is queued now, without waiting.
    public func takeAvailable() -> [LoggedEvent] { queue.takeAllQueued() }

    /// Stops queueing, drops what is queued, and wakes a consumer waiting in ``next()``.
    public func cancel() { queue.closeDiscarding() }
}
