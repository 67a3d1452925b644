import Dispatch
import NavPrefsCore
import NavPrefsStore
import Synchronization
import Testing

/// The feed's rule for a consumer that only wants events while it has streams (issue 20: the
/// delivery thread is not woken per commit when nobody listens).
@Suite("EventFeed: events are queued only while a subscription wants them, in order")
struct EventFeedTests {
    func event(_ id: Int64) -> LoggedEvent {
        LoggedEvent(id: id, profile: profile("p"), type: .counter, data: "{}", timestamp: 0)
    }

    @Test("a subscription that does not want events drops them; once it does, it gets every later one in order")
    func wantedGate() {
        let feed = EventFeed()
        let wanted = Atomic<Bool>(false)
        let gated = feed.subscribe(wanted: { wanted.load(ordering: .acquiring) })
        let always = feed.subscribe()
        feed.publish([event(1), event(2)])
        #expect(gated.takeAvailable().isEmpty)
        wanted.store(true, ordering: .releasing)
        feed.publish([event(3)])
        feed.publish([event(4), event(5)])
        #expect(gated.takeAvailable().map(\.id) == [3, 4, 5])
        #expect(always.takeAvailable().map(\.id) == [1, 2, 3, 4, 5])
    }

    @Test("cancel wakes a consumer waiting in next() with nil, drops what was queued, and queues nothing after")
    func cancelWakesConsumer() {
        let feed = EventFeed()
        let subscription = feed.subscribe()
        feed.publish([event(1)])
        #expect(subscription.next()?.map(\.id) == [1])
        let result = Mutex<[LoggedEvent]?>([])
        let ended = DispatchSemaphore(value: 0)
        startNamedThread("test-consumer") {
            result.withLock { $0 = subscription.next() }
            ended.signal()
        }
        subscription.cancel()
        #expect(ended.wait(timeout: .now() + 10) == .success, "cancel did not wake the consumer")
        #expect(result.withLock { $0 } == nil)
        feed.publish([event(2)])
        #expect(subscription.takeAvailable().isEmpty)
    }
}
