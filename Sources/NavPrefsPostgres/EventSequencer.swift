import NavPrefsCore
import NavPrefsStore
import Synchronization

/// Keeps the event feed of one ``PostgresStore`` gap-free and in id order per profile, although
/// events reach it along three paths: the store's own writes (published right after their
/// commit), notifications of other instances' writes (the listener reads them from the log), and
/// catch-ups from the log after the listener lost its connection.
///
/// Subscribers drop ids they already have, so a duplicate is harmless; a skip is not: a
/// subscriber that saw 7 drops a late 6 for good. So, per profile, the feed only ever gets the
/// id after the newest it has (``State/delivered``), and a path that is ahead first reads the
/// missing ids from the log (they are committed: a profile's commits are ordered by its row
/// lock). Where that newest id is not known yet (nothing published for the profile since the
/// store started), the rules below show when publishing is still safe.
final class EventSequencer: Sendable {
    private struct State: ~Copyable {
        /// Per profile, the newest id the feed has, and after which it will get every id in order.
        var delivered: [ProfileName: Int64] = [:]
        /// Reads of a profile's log bounds in flight (a subscriber starting) while `delivered`
        /// has no entry for it.
        var watchers: [ProfileName: Int] = [:]
        /// The lowest newest id those reads found; becomes `delivered` when the last one ends.
        var floors: [ProfileName: Int64] = [:]
        /// Per profile, events of this store's transactions whose COMMIT is on its way (see
        /// ``EventSequencer/committing(_:)``), by id.
        var committing: [ProfileName: [Int64: LoggedEvent]] = [:]
        /// Listener connections so far (each one LISTENs before it counts).
        var epoch = 0
        var listening = false
    }

    /// What a subscriber's read of the log bounds noted when it started.
    struct Watch {
        let epoch: Int
        let listening: Bool
    }

    let feed: EventFeed
    private let state = Mutex(State())

    init(feed: EventFeed) { self.feed = feed }

    // MARK: The store's own writes

    enum CommitOutcome: Equatable {
        /// Published (or the feed had it already).
        case done
        /// Ids between the feed's newest and this one are missing: read the log after this id up
        /// to the event, then hand the events to ``deliver(_:of:coveringAfter:)``.
        case fetch(after: Int64)
        /// A subscriber of a profile the feed has no position for is starting: the listener
        /// publishes the event when its notification arrives, from a position it can vouch for.
        case deferred
    }

    /// A write of this store committed `event`: publish it now if no id before it can be missing.
    ///
    /// With no position known for the profile and no subscriber starting, publishing is safe:
    /// every subscriber that starts later reads bounds that include this event.
    func committed(_ event: LoggedEvent) -> CommitOutcome {
        state.withLock { state in
            state.committing[event.profile]?[event.id] = nil
            if state.committing[event.profile]?.isEmpty == true { state.committing[event.profile] = nil }
            if let delivered = state.delivered[event.profile] {
                if event.id <= delivered { return .done }
                if event.id > delivered + 1 {
                    // The ids in between are committed (this event's id was claimed after them,
                    // under the profile's row lock). Those of this store's transactions whose
                    // threads have not published them yet are here: publish them first.
                    let between = (delivered + 1)..<event.id
                    guard let pending = state.committing[event.profile],
                          between.allSatisfy({ pending[$0] != nil }) else { return .fetch(after: delivered) }
                    feed.publish(between.compactMap { pending[$0] })
                    for id in between { state.committing[event.profile]?[id] = nil }
                }
            } else if state.watchers[event.profile, default: 0] > 0 {
                return .deferred
            }
            feed.publish([event])
            state.delivered[event.profile] = event.id
            return .done
        }
    }

    /// This store is about to send `COMMIT` for a transaction that logged `events`. If another of
    /// its transactions commits later events of the same profile and publishes first, it takes
    /// these from here rather than reading them from the log: its ids were claimed after them,
    /// so they are committed by then. (A commit that fails, see ``notCommitted(_:)``, released
    /// its ids to the next claim, so nothing can take them from here as committed.)
    func committing(_ events: [LoggedEvent]) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            for event in events { state.committing[event.profile, default: [:]][event.id] = event }
        }
    }

    /// The `COMMIT` announced by ``committing(_:)`` failed: forget its events.
    func notCommitted(_ events: [LoggedEvent]) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            for event in events {
                state.committing[event.profile]?[event.id] = nil
                if state.committing[event.profile]?.isEmpty == true { state.committing[event.profile] = nil }
            }
        }
    }

    // MARK: Notifications (listener thread)

    /// The listener was notified of ids `first...last` of `profile` (in one batch): the id after
    /// which to read the log, or `nil` when the feed has them all.
    ///
    /// With no position known, the first notification for a profile is safe to start from:
    /// every commit after the listener's `LISTEN` is notified, in commit order, and subscribers
    /// start after it, so no subscriber can be waiting for an id before `first`. A subscriber
    /// starting at this very moment is the exception (its bounds may have been read during a
    /// listener outage): then everything the log keeps is published, oldest first.
    func notified(_ profile: ProfileName, first: Int64, last: Int64) -> Int64? {
        state.withLock { state in
            if let delivered = state.delivered[profile] {
                guard last > delivered else { return nil }
                // This store's own commits, notified before their threads ran again to publish
                // them: they are committed (notifications are sent at commit), and here.
                let missing = (delivered + 1)...last
                if let pending = state.committing[profile], missing.allSatisfy({ pending[$0] != nil }) {
                    feed.publish(missing.compactMap { pending[$0] })
                    for id in missing { state.committing[profile]?[id] = nil }
                    if state.committing[profile]?.isEmpty == true { state.committing[profile] = nil }
                    state.delivered[profile] = last
                    return nil
                }
                return delivered
            }
            return state.watchers[profile, default: 0] > 0 ? 0 : first - 1
        }
    }

    /// Publishes `events`, read from the log: every event of the profile with an id above
    /// `after` up to the last one (ascending). Events the feed has are skipped. Answers `false`,
    /// publishing nothing, when the feed's newest id is below `after` (ids in between would be
    /// skipped): read again from ``position(of:)``.
    func deliver(_ events: [LoggedEvent], of profile: ProfileName, coveringAfter after: Int64) -> Bool {
        state.withLock { state in
            let delivered = state.delivered[profile]
            if let delivered, after > delivered { return false }
            let fresh = events.filter { $0.id > (delivered ?? after) }
            guard let newest = fresh.last else { return true }
            feed.publish(fresh)
            state.delivered[profile] = newest.id
            return true
        }
    }

    /// The feed's newest id for `profile`, if known.
    func position(of profile: ProfileName) -> Int64? {
        state.withLock { $0.delivered[profile] }
    }

    // MARK: Listener connection

    /// The listener is listening again: answers every profile with a known position, which it
    /// must catch up from the log (commits during the outage were not notified).
    func listenerConnected() -> [ProfileName: Int64] {
        state.withLock { state in
            state.epoch += 1
            state.listening = true
            return state.delivered
        }
    }

    func listenerLost() {
        state.withLock { $0.listening = false }
    }

    // MARK: Subscribers starting

    /// Called before reading the log bounds of `profile` for a subscriber; `nil` when the feed
    /// has a position for the profile already (nothing to arrange).
    func beginBoundsRead(of profile: ProfileName) -> Watch? {
        state.withLock { state in
            guard state.delivered[profile] == nil else { return nil }
            state.watchers[profile, default: 0] += 1
            return Watch(epoch: state.epoch, listening: state.listening)
        }
    }

    /// Called after the read (`latest`: the newest id found, `nil` if the read failed). The feed
    /// takes the lowest newest id any such read found as its position, so every id a subscriber
    /// needs comes after it. Answers whether the listener must catch the profile up from the log:
    /// when it was not listening for the whole read, commits after the read were not notified.
    func endBoundsRead(of profile: ProfileName, _ watch: Watch, latest: Int64?) -> Bool {
        state.withLock { state in
            let remaining = state.watchers[profile, default: 1] - 1
            state.watchers[profile] = remaining > 0 ? remaining : nil
            guard state.delivered[profile] == nil else {
                state.floors[profile] = nil
                return false
            }
            if let latest { state.floors[profile] = min(state.floors[profile] ?? latest, latest) }
            guard remaining == 0, let floor = state.floors.removeValue(forKey: profile) else { return false }
            state.delivered[profile] = floor
            return !watch.listening || watch.epoch != state.epoch
        }
    }
}
