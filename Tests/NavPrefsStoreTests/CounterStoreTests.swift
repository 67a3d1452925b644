import Foundation
import NavPrefsCore
import NavPrefsStore
import NavPrefsSQLite
import Testing
import StoreTestSupport

/// The counter through the ``Store`` protocol, against every store (see ``StoreKind``).
@Suite("Store contract: counters and their events")
struct CounterStoreTests {
    @Test("every profile reads as fresh until written (0, version 0); its first write creates it", arguments: StoreKind.testCases)
    func profilesComeIntoBeing(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            #expect(try await store.counter(of: .default) == .fresh(.default))
            #expect(try await store.counter(of: profile("alice")) == .fresh(profile("alice")))
            let change = try await store.apply(.increment(.one), toCounterOf: profile("alice"), if: nil)
            #expect(change.state.counter.value == 1)
            #expect(change.state.version == Version(1))
            #expect(try await store.counter(of: profile("alice")).counter.value == 1)
        }
    }

    @Test("C-2/C-3: +1, -1 below zero, clear to 0, set", arguments: StoreKind.testCases)
    func operations(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("ops")
            #expect(try await store.apply(.decrement(.one), toCounterOf: p, if: nil).state.counter.value == -1)
            #expect(try await store.apply(.decrement(.one), toCounterOf: p, if: nil).state.counter.value == -2)
            #expect(try await store.apply(.increment(step(10)), toCounterOf: p, if: nil).state.counter.value == 8)
            #expect(try await store.apply(.reset, toCounterOf: p, if: nil).state.counter.value == 0)
            #expect(try await store.apply(.set(-42), toCounterOf: p, if: nil).state.counter.value == -42)
            let state = try await store.counter(of: p)
            #expect(state.counter.value == -42)
            #expect(state.version == Version(5))
        }
    }

    @Test("C-4: a write survives closing and reopening the store", arguments: StoreKind.testCases)
    func persistsAcrossReopen(kind: StoreKind) async throws {
        let database = try TestDatabase(kind)
        defer { database.remove() }
        do {
            let store = try database.open(StoreSettings(durability: .full))
            _ = try await store.apply(.increment(step(7)), toCounterOf: profile("keep"), if: nil)
            await store.close()
        }
        let reopened = try database.open(StoreSettings(durability: .full))
        let state = try await reopened.counter(of: profile("keep"))
        #expect(state.counter.value == 7)
        #expect(state.version == Version(1))
        #expect(try await reopened.events(of: profile("keep"), after: 0, limit: 10).count == 1)
        await reopened.close()
    }

    @Test("C-7: Int64 boundaries: max-1 plus 1 succeeds; max plus 1 and min minus 1 are refused and change nothing", arguments: StoreKind.testCases)
    func int64Boundaries(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("edge")
            _ = try await store.apply(.set(.max - 1), toCounterOf: p, if: nil)
            #expect(try await store.apply(.increment(.one), toCounterOf: p, if: nil).state.counter.value == .max)
            await #expect(throws: StoreError.counter(.outOfRange(current: .max, operation: .increment(.one)))) {
                try await store.apply(.increment(.one), toCounterOf: p, if: nil)
            }
            #expect(try await store.counter(of: p).counter.value == .max)

            _ = try await store.apply(.set(.min), toCounterOf: p, if: nil)
            await #expect(throws: StoreError.counter(.outOfRange(current: .min, operation: .decrement(.one)))) {
                try await store.apply(.decrement(.one), toCounterOf: p, if: nil)
            }
            await #expect(throws: StoreError.self) {
                try await store.apply(.decrement(step(.max)), toCounterOf: p, if: nil)
            }
            let state = try await store.counter(of: p)
            #expect(state.counter.value == .min)
            #expect(state.version == Version(3), "refused writes do not bump the version")
        }
    }

    @Test("every accepted change logs exactly one event in the same transaction; refused ones log none", arguments: StoreKind.testCases)
    func eventLog(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("log")
            let first = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
            _ = try await store.apply(.set(.max), toCounterOf: p, if: nil)
            _ = try? await store.apply(.increment(.one), toCounterOf: p, if: nil)  // refused: overflow
            _ = try? await store.apply(.reset, toCounterOf: p, if: .version(in: [Version(1)]))  // refused: stale
            let last = try await store.apply(.reset, toCounterOf: p, if: .version(in: [Version(2)]))
            let events = try await store.events(of: p, after: 0, limit: 100)
            #expect(events.map(\.id) == [1, 2, 3])
            #expect(events.map(\.type) == [.counter, .counter, .counter])
            #expect(first.eventID == 1)
            #expect(last.eventID == 3)
            #expect(events[0].data == #"{"profile":"log","key":"numIndex","operation":"increment","by":1,"value":1,"stringValue":"1","version":1}"#)
            #expect(events[2].data == #"{"profile":"log","key":"numIndex","operation":"reset","value":0,"stringValue":"0","version":3}"#)
            #expect(try await store.events(of: p, after: 2, limit: 100).map(\.id) == [3])
            #expect(try await store.events(of: p, after: 0, limit: 2).map(\.id) == [1, 2])
            #expect(try await store.events(of: profile("other"), after: 0, limit: 100).isEmpty)
        }
    }

    @Test("A-1: If-Match admits only the current version (0 for a counter never written, which every profile has); If-None-Match: * only a counter never written", arguments: StoreKind.testCases)
    func preconditions(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("cas")
            await #expect(throws: StoreError.preconditionFailed(current: Version(0))) {
                try await store.apply(.increment(.one), toCounterOf: p, if: .version(in: [Version(1)]))
            }
            #expect(try await store.counter(of: p) == .fresh(p), "a refused conditional write changes nothing")
            let first = try await store.apply(.increment(.one), toCounterOf: profile("cas0"), if: .version(in: [Version(0)]))
            #expect(first.state.version == Version(1), "If-Match with the ETag a fresh counter reads")
            #expect(try await store.apply(.increment(.one), toCounterOf: profile("casStar"), if: .exists).state.counter.value == 1)
            #expect(try await store.apply(.set(5), toCounterOf: profile("casNone"), if: .absent).state.counter.value == 5)
            await #expect(throws: StoreError.preconditionFailed(current: Version(1)), "If-None-Match: * never overwrites") {
                try await store.apply(.set(6), toCounterOf: profile("casNone"), if: .absent)
            }
            _ = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
            #expect(try await store.apply(.increment(.one), toCounterOf: p, if: .version(in: [Version(1)])).state.version == Version(2))
            await #expect(throws: StoreError.preconditionFailed(current: Version(2))) {
                try await store.apply(.increment(.one), toCounterOf: p, if: .version(in: [Version(1)]))
            }
            #expect(try await store.apply(.increment(.one), toCounterOf: p, if: .version(in: [Version(9), Version(2)])).state.version == Version(3))
            #expect(try await store.apply(.reset, toCounterOf: p, if: .exists).state.version == Version(4))
            // The default profile exists from the start, at version 0.
            #expect(try await store.apply(.increment(.one), toCounterOf: .default, if: .version(in: [Version(0)])).state.version == Version(1))
        }
    }

    @Test("A-1 through the registered default: a removed counter and one never written show the defaults' version (the later of it and the removal's), and the guarded write holds to it", arguments: StoreKind.testCases)
    func preconditionsThroughDefaults(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            // A removed counter keeps its row (value NULL) at the removal's version, 2.
            let removed = profile("casRemoved")
            _ = try await store.apply(.set(3), toCounterOf: removed, if: nil)
            _ = try await store.removePreference(WellKnownKey.counter, of: removed, if: nil)
            _ = try await store.setDefaults(["numIndex": .integer(40)], merging: false, of: removed, if: nil)
            #expect(try await store.counter(of: removed) == CounterState(profile: removed, counter: Counter(40), version: Version(3)))
            await #expect(throws: StoreError.preconditionFailed(current: Version(3)), "the removal's version is not the one shown") {
                try await store.apply(.increment(.one), toCounterOf: removed, if: .version(in: [Version(2)]))
            }
            await #expect(throws: StoreError.preconditionFailed(current: Version(3))) {
                try await store.apply(.increment(.one), toCounterOf: removed, if: .noneOf([Version(3)]))
            }
            await #expect(throws: StoreError.counter(.outOfRange(current: 40, operation: .increment(step(Int64.max))))) {
                try await store.apply(.increment(step(Int64.max)), toCounterOf: removed, if: .version(in: [Version(3)]))
            }
            #expect(try await store.apply(.increment(.one), toCounterOf: removed, if: .version(in: [Version(3)])).state
                    == CounterState(profile: removed, counter: Counter(41), version: Version(4)))
            // Defaults and no stored counter: no row to update; the write inserts one.
            let registered = profile("casRegistered")
            _ = try await store.setDefaults(["numIndex": .integer(7)], merging: false, of: registered, if: nil)
            await #expect(throws: StoreError.preconditionFailed(current: Version(1))) {
                try await store.apply(.increment(.one), toCounterOf: registered, if: .version(in: [Version(0)]))
            }
            await #expect(throws: StoreError.preconditionFailed(current: Version(1)), "If-None-Match: * is not a counter with a default") {
                try await store.apply(.set(1), toCounterOf: registered, if: .absent)
            }
            #expect(try await store.counter(of: registered) == CounterState(profile: registered, counter: Counter(7), version: Version(1)),
                    "refused writes change nothing")
            #expect(try await store.apply(.decrement(.one), toCounterOf: registered, if: .noneOf([Version(0)])).state
                    == CounterState(profile: registered, counter: Counter(6), version: Version(2)))
        }
    }

    @Test("C-6: concurrent increments lose nothing and each sees a distinct value", arguments: StoreKind.testCases)
    func concurrentIncrements(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("race")
            let values = try await withThrowingTaskGroup(of: Int64.self) { group in
                for _ in 0..<400 {
                    group.addTask { try await store.apply(.increment(.one), toCounterOf: p, if: nil).state.counter.value }
                }
                var values: [Int64] = []
                for try await value in group { values.append(value) }
                return values
            }
            #expect(values.sorted() == Array(1...400))
            #expect(try await store.counter(of: p).counter.value == 400)
            #expect(try await store.events(of: p, after: 0, limit: 1000).count == 400)
        }
    }

    @Test("exactly one of two writers holding the same version wins", arguments: StoreKind.testCases)
    func etagRace(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("duel")
            _ = try await store.apply(.increment(.one), toCounterOf: p, if: nil)
            let results = await withTaskGroup(of: Bool.self) { group in
                for value in [Int64(10), 20] {
                    group.addTask { (try? await store.apply(.set(value), toCounterOf: p, if: .version(in: [Version(1)]))) != nil }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 1)
            #expect(try await store.counter(of: p).version == Version(2))
        }
    }
}
