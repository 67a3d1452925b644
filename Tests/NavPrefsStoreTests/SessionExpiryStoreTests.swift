import Foundation
import NavPrefsCore
@testable import NavPrefsStore
import Testing
import StoreTestSupport

/// Sessions that clients can manage: a label, when each was made and last changed, and an idle
/// expiry the store's pruning applies with a logged `expire` event, against every store.
@Suite("Store contract: session labels and idle expiry")
struct SessionExpiryStoreTests {
    static func session(_ root: String) throws -> NavigationSession {
        NavigationSession(root: Screen(id: try ScreenID(root)))
    }

    @Test("a label and the times of making and last change are kept, listed and read back", arguments: StoreKind.testCases)
    func labelsAndTimes(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("labels")
            let before = Int64(Date().timeIntervalSince1970 * 1000)
            let created = try await store.perform(.createSession(try Self.session("home"), label: "launch 1", of: p))
            #expect(created.state.label == "launch 1")
            #expect(created.state.createdAt >= before - 5_000 && created.state.createdAt <= before + 5_000)
            #expect(created.state.updatedAt == created.state.createdAt)
            #expect(try await store.session(created.state.id, of: p) == created.state)
            try await Task.sleep(for: .milliseconds(20))
            let pushed = try await store.updateSession(created.state.id, of: p, if: nil, SessionStoreTests.push(SessionStoreTests.screen("next")))
            #expect(pushed.state.label == "launch 1")
            #expect(pushed.state.createdAt == created.state.createdAt)
            #expect(pushed.state.updatedAt > created.state.updatedAt)
            let listed = try #require(try await store.sessions(of: p).first)
            #expect(listed.label == "launch 1")
            #expect(listed.createdAt == created.state.createdAt)
            #expect(listed.updatedAt == pushed.state.updatedAt)
            // A pop at the root changes nothing: no new change time either.
            let unlabeled = try await store.createSession(try Self.session("solo"), of: p)
            #expect(unlabeled.state.label == nil)
            let unchanged = try await store.updateSession(unlabeled.state.id, of: p, if: nil, SessionStoreTests.pop)
            #expect(unchanged.state.updatedAt == unlabeled.state.updatedAt)
        }
    }

    @Test("sessions unchanged for the idle expiry are deleted with an expire event; changed ones stay", arguments: StoreKind.testCases)
    func expiry(kind: StoreKind) async throws {
        try await withStore(kind, StoreSettings(sessionIdleExpiry: .seconds(3_600))) { store, database in
            let p = profile("expiring")
            let old = try await store.createSession(try Self.session("old"), of: p)
            let fresh = try await store.createSession(try Self.session("fresh"), of: p)
            try database.execute("UPDATE sessions SET updated_at = updated_at - 7200000 WHERE id = '\(old.state.id)'")
            #expect(try await store.expireIdleSessions() == 1)
            await #expect(throws: StoreError.sessionNotFound(old.state.id)) { try await store.session(old.state.id, of: p) }
            #expect(try await store.sessions(of: p).map(\.id) == [fresh.state.id])
            let logged = try #require(try await store.events(of: p, after: 2, limit: 10).first)
            #expect(logged.id == 3)
            #expect(logged.type == .navigation)
            #expect(logged.data == #"{"profile":"expiring","session":"\#(old.state.id)","action":"expire","version":3}"#)
            #expect(try await store.expireIdleSessions() == 0, "nothing else is idle")
        }
    }

    @Test("the store's own pruning expires idle sessions and publishes the events like any write's", arguments: StoreKind.testCases)
    func periodicExpiry(kind: StoreKind) async throws {
        let settings = StoreSettings(pruneInterval: .milliseconds(100), sessionIdleExpiry: .seconds(3_600))
        try await withStore(kind, settings) { store, database in
            let p = profile("pruned")
            let received = Locked<[LoggedEvent]>([])
            let subscription = store.feed.observe { events in received.withLock { $0 += events } }
            defer { subscription.cancel() }
            let old = try await store.createSession(try Self.session("old"), of: p)
            try database.execute("UPDATE sessions SET updated_at = updated_at - 7200000 WHERE id = '\(old.state.id)'")
            let deadline = ContinuousClock.now + .seconds(10)
            while received.withLock({ !$0.contains { $0.data.contains("\"expire\"") } }) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(received.withLock { $0.map(\.id) } == [1, 2])
            #expect(try await store.sessions(of: p).isEmpty)
        }
    }
}
