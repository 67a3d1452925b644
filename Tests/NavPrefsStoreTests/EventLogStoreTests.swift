import Foundation
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore
import Synchronization
import Testing
import StoreTestSupport

@Suite("Store contract: the event feed, log bounds and retention")
struct EventLogStoreTests {
    @Test("N-1: committed events are queued for every subscriber of the feed, in order, before the write returns; refused writes publish nothing",
          arguments: StoreKind.testCases)
    func feedBeforeAcknowledgement(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let subscription = store.feed.subscribe()
            defer { subscription.cancel() }
            let seen = Mutex<[Int64]>([])
            let p = profile("feed")
            let first = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
            seen.withLock { $0 += subscription.takeAvailable().map(\.id) }
            #expect(seen.withLock { $0 } == [first.eventID], "queued before apply returned")
            _ = try? await store.apply(.increment(.one), toCounterOf: p, if: .version(in: [Version(99)]))
            _ = try await store.setFont(try FontSettings.settingSlider(to: 1), of: p, if: nil)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<50 { group.addTask { _ = try await store.apply(.increment(.one), toCounterOf: p, if: nil) } }
                try await group.waitForAll()
            }
            if kind == .postgres {
                // The listener also announces this store's own events when their notifications
                // arrive; the feed drops those it has, but let them come before comparing.
                try await Task.sleep(for: .milliseconds(200))
            }
            seen.withLock { $0 += subscription.takeAvailable().map(\.id) }
            #expect(seen.withLock { $0 } == Array(1...52), "every committed event, once, in commit order")
        }
    }

    @Test("the bounds name the oldest kept and the newest issued id", arguments: StoreKind.testCases)
    func bounds(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            #expect(try await store.eventLogBounds(of: profile("nobody")) == EventLogBounds(earliest: 1, latest: 0))
            #expect(try await store.eventLogBounds(of: .default) == EventLogBounds(earliest: 1, latest: 0))
            for _ in 0..<3 { _ = try await store.apply(.increment(.one), toCounterOf: .default, if: nil) }
            #expect(try await store.eventLogBounds(of: .default) == EventLogBounds(earliest: 1, latest: 3))
        }
    }

    @Test("retention keeps the newest events of each profile, and none older than the age limit", arguments: StoreKind.testCases)
    func retention(kind: StoreKind) async throws {
        let database = try TestDatabase(kind)
        defer { database.remove() }
        let settings = StoreSettings(eventRetentionCount: 5, eventRetentionAge: .seconds(3600), pruneInterval: .seconds(3600))
        let store = try database.open(settings)
        for _ in 0..<12 { _ = try await store.apply(.increment(.one), toCounterOf: profile("a"), if: nil) }
        for _ in 0..<3 { _ = try await store.apply(.increment(.one), toCounterOf: profile("b"), if: nil) }
        #expect(try await prune(store) == 7)
        #expect(try await store.eventLogBounds(of: profile("a")) == EventLogBounds(earliest: 8, latest: 12))
        #expect(try await store.events(of: profile("a"), after: 0, limit: 100).map(\.id) == Array(8...12))
        #expect(try await store.eventLogBounds(of: profile("b")) == EventLogBounds(earliest: 1, latest: 3))
        #expect(try await prune(store) == 0)
        // Ages: pretend every event is two hours old.
        await store.close()
        try database.execute("UPDATE events SET created_at = created_at - 7200000;")
        let reopened = try database.open(settings)
        #expect(try await prune(reopened) == 8)
        #expect(try await reopened.eventLogBounds(of: profile("a")) == EventLogBounds(earliest: 13, latest: 12))
        await reopened.close()
    }

    @Test("the store prunes on its own every interval", arguments: StoreKind.testCases)
    func periodicPruning(kind: StoreKind) async throws {
        try await withStore(kind, StoreSettings(eventRetentionCount: 2, pruneInterval: .milliseconds(100))) { store, _ in
            for _ in 0..<6 { _ = try await store.apply(.increment(.one), toCounterOf: profile("auto"), if: nil) }
            var earliest: Int64 = 0
            for _ in 0..<50 where earliest != 5 {
                try await Task.sleep(for: .milliseconds(50))
                earliest = try await store.eventLogBounds(of: profile("auto")).earliest
            }
            #expect(earliest == 5)
        }
    }
}
