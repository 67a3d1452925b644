import Foundation
import NavPrefsCore
@testable import NavPrefsStore
import Synchronization
import Testing
@testable import NavPrefsSQLite
import StoreTestSupport

/// Reads on the caller's thread (``TransactionalStore/readOnCallingThread(snapshot:_:)``), the event loop's
/// path of a read: SQLite reads there on a connection of its own and never waits; every store
/// answers the same through ``Store/perform(_:completion:)`` whichever thread reads.
@Suite("Store reads on the caller's thread")
struct CallingThreadReadStoreTests {
    @Test("SQLite reads on the calling thread, before perform returns, and sees every acknowledged write")
    func sqliteReadsHere() async throws {
        try await withSQLiteStore { store, _ in
            for step in 1...20 {
                let written = try await store.setFont(try FontSettings.settingSlider(to: Double(step % 7)), of: profile("ana"), if: nil)
                let caller = pthread_self()
                let seen = Mutex<(FontState, Bool)?>(nil)
                store.perform(.font(of: profile("ana"))) { result in
                    if case .success(let state) = result { seen.withLock { $0 = (state, pthread_equal(pthread_self(), caller) != 0) } }
                }
                let (state, sameThread) = try #require(seen.withLock { $0 }, "answered before perform returned")
                #expect(sameThread)
                #expect(state == written.state, "step \(step)")
            }
        }
    }

    @Test("while another thread holds the connection, a read goes to a reader instead of waiting")
    func busyConnectionFallsBack() async throws {
        try await withSQLiteStore { store, _ in
            _ = try await store.apply(.increment(.one), toCounterOf: profile("ana"), if: nil)
            let nested = Mutex<Result<CounterState, StoreError>??>(nil)
            let outer = store.readOnCallingThread(snapshot: false) { _ in
                // The connection is held here: a second read on it must not wait for itself.
                nested.withLock { $0 = store.readOnCallingThread(snapshot: false) { _ in CounterState.fresh(profile("ana")) } }
                return 1
            }
            #expect(try outer?.get() == 1)
            #expect(nested.withLock { $0 } == .some(nil), "a held connection answers nil, never waits")
            // perform falls back to a reader in that case, answering the same from another thread.
            let caller = pthread_self()
            let answered = Mutex<(PreferenceSlot, Bool)?>(nil)
            let outerAgain = store.readOnCallingThread(snapshot: false) { _ in
                store.perform(.preference(WellKnownKey.counter, of: profile("ana"))) { result in
                    if case .success(let slot) = result { answered.withLock { $0 = (slot, pthread_equal(pthread_self(), caller) != 0) } }
                }
                return 2
            }
            #expect(try outerAgain?.get() == 2)
            for _ in 0..<2_500 where answered.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(2)) }
            let (slot, sameThread) = try #require(answered.withLock { $0 })
            #expect(slot.value == .string("1"), "the seed stores numIndex as a string")
            #expect(!sameThread, "read on a reader's thread")
        }
    }

    @Test("a read too large for the loop runs below its priority; every other read, whose completion may resume a task, at the process' own")
    func largeReadsAloneAreLowered() async throws {
        try await withSQLiteStore { store, _ in
            _ = try await store.apply(.increment(.one), toCounterOf: profile("ana"), if: nil)
            /// The nice value of the thread a read's completion runs on.
            func niceOfCompletion(_ start: (@escaping StoreCompletion<PreferenceSlot>) -> Void) async throws -> Int32 {
                let seen = Mutex<Int32?>(nil)
                start { _ in seen.withLock { $0 = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) } }
                for _ in 0..<2_500 where seen.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(2)) }
                return try #require(seen.withLock { $0 })
            }
            let read = StoreRead<PreferenceSlot>.preference(WellKnownKey.counter, of: profile("ana"))
            #expect(try await niceOfCompletion { store.performLarge(read, completion: $0) } == 5)
            #expect(try await niceOfCompletion { store.performElsewhere(read, completion: $0) } == 0)
            // An awaited read resumes its task from a reader: a pool thread libdispatch makes there
            // would inherit the reader's priority.
            let awaited = try await store.read(snapshot: false) { _ in getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
            #expect(awaited == 0)
        }
    }

    @Test("after close, reads answer 'closed' and nothing runs on the caller's thread")
    func closedStore() async throws {
        let database = try TestDatabase(.sqlite)
        defer { database.remove() }
        let store = try SQLiteStore.started(.init(path: database.path))
        await store.close()
        #expect(store.readOnCallingThread(snapshot: false) { _ in 1 } == nil)
        await #expect(throws: StoreError.closed) {
            try await awaitCompletion { completion in store.perform(.font(of: profile("ana")), completion: completion) }
        }
    }

    @Test("every store answers a read value the same as its async read", arguments: StoreKind.testCases)
    func sameAnswers(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            _ = try await store.setPreference(.string("dark"), for: try PreferenceKey("theme"), of: profile("ana"), if: nil)
            _ = try await store.setDefaults(["lang": .string("en")], merging: false, of: profile("ana"), if: nil)
            let state = try await awaitCompletion { completion in store.perform(.state(of: profile("ana")), completion: completion) }
            #expect(state == (try await store.state(of: profile("ana"))))
            let defaults = try await awaitCompletion { completion in store.perform(.defaults(of: profile("ana")), completion: completion) }
            #expect(defaults == (try await store.defaults(of: profile("ana"))))
        }
    }
}
