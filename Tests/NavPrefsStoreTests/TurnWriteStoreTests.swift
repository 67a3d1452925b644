import Foundation
import Glibc
import HTTPTestClient
import NavPrefsCore
@testable import NavPrefsStore
@testable import NavPrefsSQLite
import StoreTestSupport
import Synchronization
import Testing

/// The writes of an event loop's turn on SQLite (issue 34, ``TurnWrites``): a light write is
/// taken by the thread that opened the turn and runs there when the turn ends, in the turn's
/// transaction, and is answered only once that transaction's commit is durable; a refused write
/// rolls back alone; a storage error gives up the writes run in the transaction and the failing
/// one, and the later writes start a new one. A thread of the test plays the event loop.
@Suite("SQLite store: the writes of an event loop's turn")
struct TurnWriteStoreTests {
    /// What came back for each write, in the order the completions ran, and on which thread.
    final class Answers: Sendable {
        let results = Mutex<[(tag: String, result: Result<CounterChange, StoreError>, thread: UInt)]>([])

        func completion(_ tag: String) -> StoreCompletion<CounterChange> {
            { [self] result in results.withLock { $0.append((tag, result, UInt(pthread_self()))) } }
        }

        var count: Int { results.withLock { $0.count } }

        func value(_ tag: String) -> Int64? {
            results.withLock { all in all.first { $0.tag == tag }.flatMap { try? $0.result.get().state.counter.value } }
        }

        func error(_ tag: String) -> StoreError? {
            results.withLock { all in
                all.first { $0.tag == tag }.flatMap { if case .failure(let error) = $0.result { error } else { nil } }
            }
        }

        /// Waits up to 10 s for `count` answers.
        func wait(for count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while self.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            try #require(self.count >= count, "\(self.count) of \(count) writes answered")
        }
    }

    static func increment(_ name: String, if precondition: WritePrecondition? = nil) -> StoreWrite<CounterChange> {
        .counter(.increment(.one), of: profile(name), if: precondition)
    }

    @Test("a turn's writes run on its thread, are answered only after the turn ends, share one commit and one flush, and a refused one rolls back alone",
          arguments: Durability.allCases)
    func turnCommitsOnce(durability: Durability) async throws {
        try await withSQLiteStore(durability: durability) { store, _ in
            let received = Locked<[LoggedEvent]>([])
            let subscription = store.feed.observe { events in received.withLock { $0 += events } }
            defer { subscription.cancel() }
            let answers = Answers()
            let flushesBefore = store.syncer.flushes.load(ordering: .relaxed)
            let (answeredInTurn, turnThread) = try await onOwnThread { () -> (Int, UInt) in
                store.beginTurn()
                for index in 0..<9 { store.perform(Self.increment("turn\(index % 3)"), completion: answers.completion("w\(index)")) }
                // A version no counter reaches: 412, in the middle of the others.
                store.perform(Self.increment("turn0", if: .version(in: [Version(1_000_000)])), completion: answers.completion("refused"))
                store.perform(Self.increment("turn0"), completion: answers.completion("last"))
                let answered = answers.count
                store.endTurn()
                return (answered, UInt(pthread_self()))
            }
            #expect(answeredInTurn == 0, "nothing is answered before the turn's commit")
            try await answers.wait(for: 11)
            for index in 0..<9 { #expect(answers.value("w\(index)") == Int64(index / 3 + 1), "w\(index)") }
            #expect(answers.value("last") == 4)
            if case .preconditionFailed? = answers.error("refused") {} else { Issue.record("the stale If-Match got \(String(describing: answers.error("refused")))") }
            let threads = Set(answers.results.withLock { $0.map(\.thread) })
            switch durability {
            case .normal:
                #expect(threads == [turnThread], "at NORMAL the commit is durable at once: answered when the turn ends, on its thread")
            case .full:
                #expect(threads.count == 1 && !threads.contains(turnThread), "at FULL one other thread, the syncer, answers after its flush")
                #expect(store.syncer.flushes.load(ordering: .relaxed) == flushesBefore + 1, "one flush for the turn")
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while received.withLock({ $0.count }) < 10, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            let events = received.withLock { $0 }
            #expect(events.count == 10, "one event per accepted write, none for the refused one")
            #expect(events.filter { $0.profile == profile("turn0") }.map(\.id) == [1, 2, 3, 4],
                    "the refused write's event id was rolled back with its savepoint; events in commit order")
        }
    }

    @Test("a turn's writes run together when it ends, in the order taken, on its thread; the 32nd write taken runs the 32 waiting, so the loop never runs more at once")
    func takenWritesRunTogether() async throws {
        try await withSQLiteStore(durability: .normal) { store, _ in
            let runs = Locked<[(index: Int, thread: UInt)]>([])
            let answers = Answers()
            @Sendable func write(_ index: Int) -> StoreWrite<CounterChange> {
                let increment = Self.increment("together")
                return StoreWrite(of: profile("together"), growsStorage: false, boundedWork: true) { transaction, limits in
                    runs.withLock { $0.append((index, UInt(pthread_self()))) }
                    return try increment.steps(transaction, limits)
                }
            }
            let (ranWhileTaking, ranAtThe32nd, turnThread) = try await onOwnThread { () -> (Int, Int, UInt) in
                store.beginTurn()
                for index in 0..<(TurnWrites.runTogether - 1) { store.perform(write(index), completion: answers.completion("w\(index)")) }
                let whileTaking = runs.withLock { $0.count }
                store.perform(write(TurnWrites.runTogether - 1), completion: answers.completion("w\(TurnWrites.runTogether - 1)"))
                let atThe32nd = runs.withLock { $0.count }
                for index in TurnWrites.runTogether..<(TurnWrites.runTogether + 3) {
                    store.perform(write(index), completion: answers.completion("w\(index)"))
                }
                store.endTurn()
                return (whileTaking, atThe32nd, UInt(pthread_self()))
            }
            let total = TurnWrites.runTogether + 3
            #expect(ranWhileTaking == 0, "a write taken waits for the turn's end")
            #expect(ranAtThe32nd == TurnWrites.runTogether, "the write that fills the batch runs the ones waiting")
            try await answers.wait(for: total)
            let order = runs.withLock { $0 }
            #expect(order.map(\.index) == Array(0..<total), "run once each, in the order taken")
            #expect(Set(order.map(\.thread)) == [turnThread], "on the turn's thread")
            for index in 0..<total { #expect(answers.value("w\(index)") == Int64(index + 1), "w\(index)") }
        }
    }

    @Test("at FULL, turns that end while a flush runs keep one transaction open and commit it together once the flush is done")
    func turnsShareACommitDuringAFlush() async throws {
        try await withSQLiteStore(durability: .full) { store, _ in
            let answers = Answers()
            let wakes = Atomic<Int>(0)
            let flushesBefore = store.syncer.flushes.load(ordering: .relaxed)
            let seen = try await onOwnThread { () -> (heldRead: Int64?, answeredWhileHeld: Int, wakes: Int) in
                // One thread runs every turn, as the event loop does.
                store.startTurns(wake: { wakes.add(1, ordering: .relaxed) })
                defer { store.stopTurns() }
                let (heldRead, answeredWhileHeld) = try store.syncer.holdingFlushes { () -> (Int64?, Int) in
                    store.beginTurn()
                    store.perform(Self.increment("first"), completion: answers.completion("first"))
                    store.endTurn()  // the syncer is idle: committed now; its flush starts and waits here
                    let deadline = ContinuousClock.now + .seconds(10)
                    while !store.syncer.isFlushing, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
                    for name in ["second", "third"] {
                        store.beginTurn()
                        store.perform(Self.increment(name), completion: answers.completion(name))
                        store.endTurn()  // a flush runs: kept open
                    }
                    return (try Self.readOnReader(store, "second"), answers.count)
                }
                let deadline = ContinuousClock.now + .seconds(10)
                while wakes.load(ordering: .relaxed) == 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
                store.beginTurn()
                store.endTurn()  // the flush is done: the held writes commit
                return (heldRead, answeredWhileHeld, wakes.load(ordering: .relaxed))
            }
            #expect(seen.heldRead == 0, "the held transaction is not committed while the flush runs")
            #expect(seen.answeredWhileHeld == 0)
            #expect(seen.wakes >= 1, "the syncer woke the turns' thread once its flush was done")
            try await answers.wait(for: 3)
            #expect(answers.value("first") == 1 && answers.value("second") == 1 && answers.value("third") == 1)
            #expect(store.syncer.flushes.load(ordering: .relaxed) == flushesBefore + 2, "two flushes: the first turn's, then the two held turns' together")
        }
    }

    @Test("at FULL, while the turn's flush is pending: nothing is answered or published, and a read shows the committed write (as Redis does)")
    func readDuringPendingFlush() async throws {
        try await withSQLiteStore(durability: .full) { store, _ in
            let received = Locked<[LoggedEvent]>([])
            let subscription = store.feed.observe { events in received.withLock { $0 += events } }
            defer { subscription.cancel() }
            #expect(try await store.apply(.increment(.one), toCounterOf: profile("pending"), if: nil).state.counter.value == 1)
            // That write went through the writer, and at FULL the syncer answers it after the
            // flush, which can come before the writer thread counts it finished: a turn's write
            // then goes to the writer instead (ASan's slower run did it once). Wait for the writer.
            let deadline = ContinuousClock.now + .seconds(10)
            while !store.writer.isIdle, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            try #require(store.writer.isIdle, "the writer never went idle")
            let answers = Answers()
            let seen = try await onOwnThread { () -> (inTurn: Int64?, cached: Int64?, read: Int64?, answered: Int, published: Int) in
                try store.syncer.holdingFlushes {
                    store.beginTurn()
                    store.perform(Self.increment("pending"), completion: answers.completion("pending"))
                    // Not committed yet: no reader sees it.
                    let inTurn = try Self.readOnReader(store, "pending")
                    store.endTurn()
                    Thread.sleep(forTimeInterval: 0.1)
                    return (inTurn, store.cachedCounter(of: profile("pending"))?.counter.value, try Self.readOnReader(store, "pending"),
                            answers.count, received.withLock { $0.count })
                }
            }
            #expect(seen.inTurn == 1, "the open transaction is seen by nobody")
            #expect(seen.cached == 2 && seen.read == 2, "committed, flush pending: reads show it")
            #expect(seen.answered == 0, "its writer is not answered before the flush")
            #expect(seen.published <= 1, "its event is not published before the flush")
            try await answers.wait(for: 1)
            #expect(answers.value("pending") == 2)
        }
    }

    @Test("a storage error in a turn gives up the writes run in its transaction, each answered with it; a later write of the turn commits")
    func storageErrorGivesUpTheTurn() async throws {
        try await withSQLiteStore(durability: .full) { store, database in
            // A real SQLite error on the write connection alone: a temporary trigger refusing
            // the event rows of one profile (SQLITE_CONSTRAINT_TRIGGER, not a StoreError).
            store.writeConnection.withConnection { context in
                try? context.connection.execute("""
                    CREATE TEMP TRIGGER refuse_doomed BEFORE INSERT ON events WHEN NEW.profile = 'doomed'
                    BEGIN SELECT RAISE(ABORT, 'injected storage failure'); END;
                    """)
            }
            let answers = Answers()
            try await onOwnThread {
                store.beginTurn()
                store.perform(Self.increment("kept-out"), completion: answers.completion("before"))
                store.perform(Self.increment("doomed"), completion: answers.completion("doomed"))
                store.perform(Self.increment("after"), completion: answers.completion("after"))
                store.endTurn()
            }
            try await answers.wait(for: 3)
            #expect(answers.error("before") != nil && answers.error("doomed") != nil, "both writes of the lost transaction fail")
            #expect(answers.value("after") == 1)
            #expect(try sqlite3(database.path, "SELECT count(*) FROM events WHERE profile IN ('kept-out', 'doomed')") == "0\n",
                    "nothing of the lost transaction is kept")
            #expect(try await store.counter(of: profile("kept-out")).counter.value == 0)
            #expect(try await store.counter(of: profile("after")).counter.value == 1)
        }
    }

    @Test("a turn never waits for the write connection: while the writer holds it, the turn's writes go to the writer")
    func turnNeverWaits() async throws {
        try await withSQLiteStore(durability: .normal) { store, _ in
            let answers = Answers()
            let held = DispatchSemaphore(value: 0)
            let holder = Thread {
                store.writeConnection.withConnection { _ in
                    held.signal()
                    Thread.sleep(forTimeInterval: 0.3)
                }
            }
            holder.start()
            held.wait()
            let turnTook = try await onOwnThread { () -> Duration in
                let start = ContinuousClock.now
                store.beginTurn()
                store.perform(Self.increment("busy"), completion: answers.completion("first"))
                store.perform(Self.increment("busy"), completion: answers.completion("second"))
                store.endTurn()
                return ContinuousClock.now - start
            }
            #expect(turnTook < .milliseconds(150), "the turn took \(turnTook) while the connection was held")
            try await answers.wait(for: 2)
            #expect(Set([answers.value("first"), answers.value("second")]) == [1, 2], "both written, by the writer, in order of arrival")
        }
    }

    @Test("a keyed write sent twice in one turn runs once; the second gets the first's answer from the same transaction")
    func idempotencyWithinATurn() async throws {
        try await withSQLiteStore(durability: .full) { store, _ in
            let outcomes = Locked<[IdempotentOutcome]>([])
            let request = IdempotentRequest(profile: profile("keyed"), key: "k1", fingerprint: "f")
            try await onOwnThread {
                store.beginTurn()
                for _ in 0..<2 {
                    store.perform(Self.increment("keyed"), remembering: request, answer: { change in
                        RecordedAnswer(status: 200, headers: [], body: "\(change.state.counter.value)")
                    }, completion: { result in
                        if case .success(let outcome) = result { outcomes.withLock { $0.append(outcome) } }
                    })
                }
                store.endTurn()
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while outcomes.withLock({ $0.count }) < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            let both = outcomes.withLock { $0 }
            try #require(both.count == 2)
            guard case .performed(let first, _) = both[0], case .replayed(let second) = both[1] else {
                Issue.record("expected performed then replayed: \(both)")
                return
            }
            #expect(first.body == "1" && second.body == "1")
            #expect(try await store.counter(of: profile("keyed")).counter.value == 1)
        }
    }

    /// The counter as a reader thread reads it (a committed snapshot), bypassing the cache.
    static func readOnReader(_ store: SQLiteStore, _ name: String) throws -> Int64? {
        let result = Locked<Result<CounterState, StoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        store.read(snapshot: false, StoreRead<CounterState>.counter(of: profile(name)).body) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0 }?.get().counter.value
    }
}
