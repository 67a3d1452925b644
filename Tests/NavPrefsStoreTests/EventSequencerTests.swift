import NavPrefsCore
@testable import NavPrefsStore
import Synchronization
import Testing
@testable import NavPrefsPostgres

/// The rules that keep the PostgreSQL store's feed gap-free (no database needed).
@Suite("EventSequencer: the feed gets each profile's ids in order, never skipping one")
struct EventSequencerTests {
    let p = profile("p")

    func event(_ id: Int64) -> LoggedEvent { LoggedEvent(id: id, profile: p, type: .counter, data: "{}", timestamp: 0) }

    /// What a feed got: its subscription's events so far.
    final class Published: Sendable {
        private let subscription: FeedSubscription
        private let ids = Mutex<[Int64]>([])
        init(_ subscription: FeedSubscription) { self.subscription = subscription }
        func withLock<R>(_ body: ([Int64]) -> R) -> R {
            ids.withLock { ids in
                ids += subscription.takeAvailable().map(\.id)
                return body(ids)
            }
        }
    }

    /// A sequencer whose feed records what it got.
    func sequencer() -> (EventSequencer, Published) {
        let feed = EventFeed()
        let published = Published(feed.subscribe())
        let sequencer = EventSequencer(feed: feed)
        _ = sequencer.listenerConnected()
        return (sequencer, published)
    }

    @Test("an own write ahead of the feed takes the ids before it from transactions of this store whose COMMIT was sent, not from the log")
    func committingTransactions() {
        let (sequencer, published) = sequencer()
        #expect(sequencer.committed(event(1)) == .done)
        // Two transactions committing 2 and 3; the one with 4 commits and publishes first.
        sequencer.committing([event(2)])
        sequencer.committing([event(3)])
        #expect(sequencer.committed(event(4)) == .done)
        #expect(published.withLock { $0 } == [1, 2, 3, 4])
        #expect(sequencer.committed(event(2)) == .done, "its own thread's publish comes late: a duplicate, dropped")
        #expect(sequencer.committed(event(3)) == .done)
        #expect(published.withLock { $0 } == [1, 2, 3, 4])
        // A commit that failed is forgotten: what is missing then comes from the log.
        sequencer.committing([event(5)])
        sequencer.notCommitted([event(5)])
        #expect(sequencer.committed(event(6)) == .fetch(after: 4))
        // Only a complete run of ids is taken: 7 alone does not cover 6 and 7 before 8.
        #expect(sequencer.deliver([event(5), event(6)], of: p, coveringAfter: 4))
        sequencer.committing([event(8)])
        #expect(sequencer.committed(event(9)) == .fetch(after: 6))
    }

    @Test("a notification of this store's own commits, arriving before their threads publish, is served from memory")
    func notifiedOwnCommits() {
        let (sequencer, published) = sequencer()
        #expect(sequencer.committed(event(1)) == .done)
        sequencer.committing([event(2), event(3)])
        #expect(sequencer.notified(p, first: 2, last: 3) == nil, "nothing to read from the log")
        #expect(published.withLock { $0 } == [1, 2, 3])
        #expect(sequencer.committed(event(3)) == .done, "the late publish is a duplicate")
        #expect(sequencer.notified(p, first: 4, last: 4) == 3, "another instance's commit: read from the log")
    }

    @Test("an own write is published at once when nothing before it can be missing")
    func ownWrites() {
        let (sequencer, published) = sequencer()
        #expect(sequencer.committed(event(4)) == .done, "no position and nobody subscribing: safe")
        #expect(sequencer.committed(event(5)) == .done)
        #expect(sequencer.committed(event(5)) == .done, "a duplicate is dropped")
        #expect(sequencer.committed(event(8)) == .fetch(after: 5), "6 and 7 come from the log first")
        #expect(published.withLock { $0 } == [4, 5])
        #expect(sequencer.deliver([event(6), event(7), event(8)], of: p, coveringAfter: 5))
        #expect(published.withLock { $0 } == [4, 5, 6, 7, 8])
        #expect(sequencer.notified(p, first: 6, last: 8) == nil, "the listener has nothing left to do")
        #expect(sequencer.notified(p, first: 9, last: 9) == 8)
    }

    @Test("a subscriber reading the bounds sets the position; an own write meanwhile is left to the listener")
    func subscriberStarting() throws {
        let (sequencer, published) = sequencer()
        let watch = try #require(sequencer.beginBoundsRead(of: p))
        #expect(sequencer.committed(event(3)) == .deferred)
        #expect(sequencer.notified(p, first: 3, last: 3) == 0, "with a subscriber starting, from the start of the log")
        #expect(!sequencer.endBoundsRead(of: p, watch, latest: 2))
        #expect(sequencer.position(of: p) == 2)
        #expect(sequencer.deliver([event(1), event(2), event(3)], of: p, coveringAfter: 0))
        #expect(published.withLock { $0 } == [3])
        #expect(sequencer.beginBoundsRead(of: p) == nil, "a known position needs no arrangement")
    }

    @Test("concurrent bounds reads: the lowest newest id wins, so the slower subscriber misses nothing")
    func lowestFloorWins() throws {
        let (sequencer, _) = sequencer()
        let first = try #require(sequencer.beginBoundsRead(of: p))
        let second = try #require(sequencer.beginBoundsRead(of: p))
        _ = sequencer.endBoundsRead(of: p, second, latest: 9)
        #expect(sequencer.position(of: p) == nil, "not before the last read ends")
        _ = sequencer.endBoundsRead(of: p, first, latest: 7)
        #expect(sequencer.position(of: p) == 7)
    }

    @Test("a bounds read across a listener outage asks for a catch-up")
    func outageDuringRead() throws {
        let (sequencer, _) = sequencer()
        let watch = try #require(sequencer.beginBoundsRead(of: p))
        sequencer.listenerLost()
        _ = sequencer.listenerConnected()
        #expect(sequencer.endBoundsRead(of: p, watch, latest: 4))
    }

    @Test("a read of the log that starts above the feed's position is refused, so nothing is skipped")
    func readFromTooFar() {
        let (sequencer, published) = sequencer()
        #expect(sequencer.committed(event(1)) == .done)
        #expect(!sequencer.deliver([event(4)], of: p, coveringAfter: 3))
        #expect(sequencer.deliver([event(2), event(3), event(4)], of: p, coveringAfter: 1))
        #expect(published.withLock { $0 } == [1, 2, 3, 4])
    }

    @Test("the listener starts a profile it has no position for at its first notification")
    func firstNotification() {
        let (sequencer, published) = sequencer()
        #expect(sequencer.notified(p, first: 10, last: 12) == 9)
        #expect(sequencer.deliver([event(10), event(11), event(12)], of: p, coveringAfter: 9))
        #expect(published.withLock { $0 } == [10, 11, 12])
        #expect(sequencer.listenerConnected() == [p: 12], "caught up after a reconnect")
    }
}
