import Foundation
import NavPrefsCore
import NavPrefsJSON
@testable import NavPrefsStore
import NavPrefsSQLite
import Testing
import StoreTestSupport

/// Navigation sessions through the ``Store`` protocol, against every store (see ``StoreKind``).
@Suite("Store contract: navigation sessions")
struct SessionStoreTests {
    static func screen(_ id: String, title: String? = nil) -> Screen {
        // Test ids are literals known to be valid.
        Screen(id: try! ScreenID(id), navigationItem: NavigationItem(title: title))
    }

    static func screenID(_ id: String) -> ScreenID { screen(id).id }

    /// A push as the HTTP layer performs it: the transition, logged when the stack changed.
    static func push(_ screen: Screen) -> @Sendable (inout NavigationSession) throws(NavigationError) -> SessionEdit<NavigationTransition> {
        { session throws(NavigationError) in
            let transition = try session.push(screen)
            return SessionEdit(result: transition, event: transition.changed ? (transition.action.rawValue, transition.eventPayload) : nil)
        }
    }

    static let pop: @Sendable (inout NavigationSession) throws(NavigationError) -> SessionEdit<NavigationTransition> = { session in
        let transition = session.pop()
        return SessionEdit(result: transition, event: transition.changed ? (transition.action.rawValue, transition.eventPayload) : nil)
    }

    @Test("create, read, list, delete: a new session is its root; the list is oldest first with depth, root and top", arguments: StoreKind.testCases)
    func roundTrip(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("nav")
            #expect(try await store.sessions(of: p) == [], "a fresh profile has no sessions")
            let created = try await store.createSession(NavigationSession(root: Self.screen("home", title: "Home")), of: p)
            #expect(created.eventID == 1)
            #expect(created.state.version == Version(1))
            #expect(created.state.session.stack.ids == [Self.screenID("home")])
            let id = created.state.id
            #expect(try await store.session(id, of: p) == created.state)

            let other = try await store.createSession(NavigationSession(root: Self.screen("start")), of: p)
            #expect(other.state.id != id)
            let pushed = try await store.updateSession(other.state.id, of: p, if: nil, Self.push(Self.screen("detail")))
            #expect(pushed.eventID == 3)
            #expect(pushed.result.to == Self.screenID("detail"))
            let listed = try await store.sessions(of: p)
            #expect(listed.map { [$0.id.rawValue, "\($0.version)", "\($0.depth)", $0.root.rawValue, $0.top.rawValue] } == [
                [id.rawValue, "1", "1", "home", "home"],
                [other.state.id.rawValue, "3", "2", "start", "detail"],
            ])

            let deletedEvent = try await store.deleteSession(id, of: p, if: nil)
            #expect(deletedEvent == 4)
            await #expect(throws: StoreError.sessionNotFound(id)) { try await store.session(id, of: p) }
            await #expect(throws: StoreError.sessionNotFound(id)) { try await store.deleteSession(id, of: p, if: nil) }
            await #expect(throws: StoreError.sessionNotFound(id)) { try await store.updateSession(id, of: p, if: nil, Self.pop) }
            await #expect(throws: StoreError.preconditionFailed(current: nil)) {
                try await store.updateSession(id, of: p, if: .exists, Self.pop)
            }
            #expect(try await store.sessions(of: p).map(\.id) == [other.state.id])
            _ = try await store.deleteSession(other.state.id, of: p, if: nil)
            #expect(try await store.sessions(of: p).isEmpty, "the profile stays, with no sessions")

            let events = try await store.events(of: p, after: 0, limit: 100)
            #expect(events.map(\.id) == [1, 2, 3, 4, 5])
            #expect(events.allSatisfy { $0.type == .navigation })
        }
    }

    @Test("a session of one profile is not found through another", arguments: StoreKind.testCases)
    func isolation(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let a = profile("a"), b = profile("b")
            let created = try await store.createSession(NavigationSession(root: Self.screen("home")), of: a)
            _ = try await store.createSession(NavigationSession(root: Self.screen("home")), of: b)
            let id = created.state.id
            await #expect(throws: StoreError.sessionNotFound(id)) { try await store.session(id, of: b) }
            await #expect(throws: StoreError.sessionNotFound(id)) { try await store.updateSession(id, of: b, if: nil, Self.pop) }
            await #expect(throws: StoreError.sessionNotFound(id)) { try await store.deleteSession(id, of: b, if: nil) }
            #expect(try await store.session(id, of: a) == created.state)
        }
    }

    @Test("sessions survive closing and reopening the store, with their versions and the profile's event sequence", arguments: StoreKind.testCases)
    func survivesReopen(kind: StoreKind) async throws {
        let database = try TestDatabase(kind)
        defer { database.remove() }
        let p = profile("durable")
        let settings = StoreSettings(durability: .full)
        var store = try database.open(settings)
        let created = try await store.createSession(
            NavigationSession(root: Self.screen("home", title: "Home"), appearance: BarAppearance(barTintColor: BarColor("#FF0000")),
                              options: NavigationOptions(seedCustomBackItem: true)), of: p)
        let pushed = try await store.updateSession(created.state.id, of: p, if: nil, Self.push(Self.screen("detail", title: "Détail")))
        #expect(pushed.state.session.stack.top.navigationItem.leftBarButtonItem == .seedBackItem, "B-11 applied by the edit")
        await store.close()

        store = try database.open(settings)
        let reread = try await store.session(created.state.id, of: p)
        #expect(reread == pushed.state)
        #expect(reread.session.stack.top.navigationItem.title == "Détail")
        #expect(reread.session.appearance.barTintColor == BarColor("#FF0000"))
        #expect(try await store.sessions(of: p).map(\.depth) == [2])
        let popped = try await store.updateSession(created.state.id, of: p, if: .version(in: [pushed.state.version]), Self.pop)
        #expect(popped.state.version == Version(3), "the event sequence continues after a reopen")
        await store.close()
    }

    @Test("versions come from the profile's event sequence, interleaved with preference writes, which keep their own version", arguments: StoreKind.testCases)
    func versionsInterleave(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("mixed")
            let created = try await store.createSession(NavigationSession(root: Self.screen("home")), of: p)
            let id = created.state.id
            #expect(try await store.preferences(of: p).version == Version(0), "a session is not a preference")
            let first = try await store.updateSession(id, of: p, if: nil, Self.push(Self.screen("a")))
            let counter = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
            let second = try await store.updateSession(id, of: p, if: nil, Self.push(Self.screen("b")))
            let versions = [created.state.version, first.state.version, counter.state.version, second.state.version]
            #expect(versions == [Int64(1), 2, 3, 4].map { Version($0) })
            #expect(try await store.preferences(of: p).version == counter.state.version)
            #expect(try await store.counter(of: p).version == counter.state.version)
            _ = try await store.updateSession(id, of: p, if: nil, Self.pop)
            #expect(try await store.preferences(of: p).version == counter.state.version, "session writes leave it alone")
            #expect(try await store.events(of: p, after: 0, limit: 10).map(\.type) == [.navigation, .navigation, .counter, .navigation, .navigation])
            #expect(try await store.eventLogBounds(of: p).latest == 5)
        }
    }

    @Test("50 concurrent pushes of distinct screens all apply: none lost, depth 51, distinct versions, one event each", arguments: StoreKind.testCases)
    func concurrentUpdates(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("busy")
            let id = try await store.createSession(NavigationSession(root: Self.screen("root")), of: p).state.id
            let changes = try await withThrowingTaskGroup(of: SessionChange<NavigationTransition>.self) { group in
                for index in 0..<50 {
                    group.addTask { try await store.updateSession(id, of: p, if: nil, Self.push(Self.screen("s\(index)"))) }
                }
                var changes: [SessionChange<NavigationTransition>] = []
                for try await change in group { changes.append(change) }
                return changes
            }
            let final = try await store.session(id, of: p)
            #expect(final.session.stack.count == 51)
            #expect(Set(final.session.stack.ids) == Set([Self.screenID("root")] + (0..<50).map { Self.screenID("s\($0)") }))
            let versions = changes.map(\.state.version)
            #expect(Set(versions).count == 50)
            #expect(Set(versions) == Set((Int64(2)...51).map { Version($0) }))
            #expect(final.version == Version(51))
            // Each edit ran on the state as stored: its stack is the one before it plus its screen.
            for change in changes {
                #expect(change.result.after.count == change.result.before.count + 1)
                #expect(change.state.session.stack.count == Int(change.state.version.rawValue))
            }
            #expect(try await store.events(of: p, after: 0, limit: 100).count == 51)
        }
    }

    @Test("an edit that throws leaves the stored session, the event log and the event sequence unchanged", arguments: StoreKind.testCases)
    func throwingEditChangesNothing(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("careful")
            let id = try await store.createSession(NavigationSession(root: Self.screen("home")), of: p).state.id
            _ = try await store.updateSession(id, of: p, if: nil, Self.push(Self.screen("a")))
            let before = try await store.session(id, of: p)
            let eventsBefore = try await store.events(of: p, after: 0, limit: 100)

            await #expect(throws: StoreError.navigation(.stackFull(limit: 1))) {
                try await store.updateSession(id, of: p, if: nil) { session throws(NavigationError) -> SessionEdit<Void> in
                    try session.push(Self.screen("b"))  // changes the copy, then refuses
                    throw .stackFull(limit: 1)
                }
            }
            await #expect(throws: StoreError.navigation(.alreadyOnStack(Self.screenID("a")))) {
                try await store.updateSession(id, of: p, if: nil, Self.push(Self.screen("a", title: "Again")))
            }
            await #expect(throws: StoreError.preconditionFailed(current: before.version)) {
                try await store.updateSession(id, of: p, if: .version(in: [Version(1)]), Self.push(Self.screen("c")))
            }
            let unchanged = try await store.updateSession(id, of: p, if: nil) { session -> SessionEdit<Int> in
                session.popToRoot()  // changed in the copy, but reported as no change: nothing is written
                return .unchanged(7)
            }
            #expect(unchanged.eventID == nil)
            #expect(unchanged.result == 7)
            #expect(unchanged.state == before)

            #expect(try await store.session(id, of: p) == before)
            #expect(try await store.events(of: p, after: 0, limit: 100) == eventsBefore)
            #expect(try await store.eventLogBounds(of: p).latest == 2, "no event id was taken")
            let next = try await store.updateSession(id, of: p, if: nil, Self.push(Self.screen("b")))
            #expect(next.eventID == 3)
        }
    }

    @Test("If-Match on sessions: a stale version or a deleted session fails, the current one passes", arguments: StoreKind.testCases)
    func preconditions(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("guarded")
            let created = try await store.createSession(NavigationSession(root: Self.screen("home")), of: p)
            let id = created.state.id
            let pushed = try await store.updateSession(id, of: p, if: .version(in: [created.state.version]), Self.push(Self.screen("a")))
            await #expect(throws: StoreError.preconditionFailed(current: pushed.state.version)) {
                try await store.updateSession(id, of: p, if: .version(in: [created.state.version]), Self.pop)
            }
            await #expect(throws: StoreError.preconditionFailed(current: pushed.state.version)) {
                try await store.deleteSession(id, of: p, if: .version(in: [created.state.version]))
            }
            _ = try await store.deleteSession(id, of: p, if: .version(in: [pushed.state.version]))
            await #expect(throws: StoreError.preconditionFailed(current: nil)) {
                try await store.deleteSession(id, of: p, if: .exists)
            }
        }
    }

    @Test("a profile holds at most maxSessionsPerProfile sessions; a refused create writes and logs nothing; others are unaffected", arguments: StoreKind.testCases)
    func sessionLimit(kind: StoreKind) async throws {
        try await withStore(kind, StoreSettings(maxSessionsPerProfile: 3)) { store, _ in
            let p = profile("full")
            var ids: [SessionID] = []
            for index in 0..<3 {
                ids.append(try await store.createSession(NavigationSession(root: Self.screen("r\(index)")), of: p).state.id)
            }
            await #expect(throws: StoreError.tooManySessions(limit: 3)) {
                try await store.createSession(NavigationSession(root: Self.screen("r3")), of: p)
            }
            #expect(try await store.sessions(of: p).map(\.id) == ids)
            #expect(try await store.eventLogBounds(of: p).latest == 3)
            _ = try await store.createSession(NavigationSession(root: Self.screen("r0")), of: profile("other"))
            _ = try await store.deleteSession(ids[0], of: p, if: nil)
            let again = try await store.createSession(NavigationSession(root: Self.screen("r3")), of: p)
            #expect(again.eventID == 5)
            #expect(try await store.sessions(of: p).map(\.id) == Array(ids.dropFirst()) + [again.state.id])
        }
    }

    @Test("a profile created by its first session reads its counter as before: a fresh 0, also from the cache", arguments: StoreKind.testCases)
    func sessionCreatesProfileForCounter(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("newcomer")
            #expect(try await store.counter(of: p) == .fresh(p))
            let cache = store as? any CounterCacheReading  // only SQLite keeps one
            if let cache { #expect([nil, CounterState.fresh(p)].contains(cache.cachedCounter(of: p))) }
            _ = try await store.createSession(NavigationSession(root: Self.screen("home")), of: p)
            if let cache { #expect([nil, CounterState.fresh(p)].contains(cache.cachedCounter(of: p))) }
            #expect(try await store.counter(of: p) == .fresh(p), "the uncached read agrees")
        }
    }

    @Test("the list is oldest first: sessions acknowledged one after the other, many within one millisecond", arguments: StoreKind.testCases)
    func listOrderSequential(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("quick")
            var ids: [SessionID] = []
            for index in 0..<100 {
                ids.append(try await store.createSession(NavigationSession(root: Self.screen("r\(index)")), of: p).state.id)
            }
            let listed = try await store.sessions(of: p).map(\.id)
            #expect(listed == ids)
            #expect(Set(listed) == Set(ids))
        }
    }

    @Test("the list is oldest first: concurrent creates are listed in commit order (their versions)", arguments: StoreKind.testCases)
    func listOrderConcurrent(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("burst")
            _ = try await store.createSession(NavigationSession(root: Self.screen("first")), of: p)
            let created = try await withThrowingTaskGroup(of: SessionState.self) { group in
                for index in 0..<40 {
                    group.addTask { try await store.createSession(NavigationSession(root: Self.screen("r\(index)")), of: p).state }
                }
                var states: [SessionState] = []
                for try await state in group { states.append(state) }
                return states
            }
            let listed = try await store.sessions(of: p)
            #expect(listed.count == 41)
            #expect(Set(listed.map(\.version)).count == 41)
            // Nothing changed the sessions after their creation, so their version is their creation's.
            let byVersion = listed.sorted { $0.version < $1.version }.map(\.id)
            #expect(listed.map(\.id) == byVersion)
            #expect(Set(listed.map(\.id)) == Set(created.map(\.id) + [byVersion[0]]))
        }
    }
}
