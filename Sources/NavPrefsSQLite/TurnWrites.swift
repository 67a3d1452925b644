import Glibc
import NavPrefsStore
import Synchronization

/// The writes of one turn of the event loop, the way Redis makes a durable write:
/// a light write is taken at once, on the loop, into the turn's open transaction; when the turn
/// ends (libmicrohttpd's run returned) the writes taken run one after another, each in a
/// savepoint of its own, and the transaction commits once; the turn's writes are answered after
/// that commit is durable (``CommitPipeline``: at once with ``Durability/normal``, after the
/// ``WALSyncer``'s flush with ``Durability/full``). No hand-off to the writer thread and back, no
/// wake-up per write.
///
/// Why the statements wait for the turn's end, not run as each request arrives: run together,
/// SQLite's code and pages stay in the core's caches from one write to the next instead of
/// being displaced by the HTTP work of every request in between. Measured (bench/README.md,
/// 2026-12-05, FULL increments, server on one core): 72-74 us of server CPU per write at c = 64
/// against 97-112 run as they arrived, 114-122 against 132-154 at c = 16. Nothing is answered or
/// visible before the commit either way, so the order and what readers see do not change.
///
/// A refused write (412, 409) rolls back its savepoint alone and is answered with the rest, after
/// the commit. A storage error rolls the turn's transaction back: every write run in it, and the
/// one that failed, is answered with the error and none of it is kept; the writes after it start
/// a new one (answered with the error too if that one cannot begin: another process took the
/// database's lock in between).
/// At most `maxBatch` writes share a commit, and at most ``runTogether`` wait to run, so that the
/// loop is never held for more than that many writes' statements at once.
///
/// With ``Durability/full``, while the syncer is flushing an earlier commit, a turn that ends
/// keeps its transaction open instead of committing (``WALSyncer/holdForFlush()``): its commit
/// would wait for the next flush anyway, which can start only when this one is done. The next
/// turns add their writes to it, and the first turn to end after the flush commits them all, so
/// one commit and one flush serve all the writes that arrived during a flush, as a writer
/// thread's group commit did (measured: about 8 writes per commit without this at c = 64, 4
/// turns per flush). The syncer wakes the loop when its flush is done
/// (``enableHolding(wake:)``); a turn never holds when the writer waits for the connection,
/// without a way to be woken (the in-memory transport), or past `maxBatch` writes.
///
/// What stays with the writer thread (``SQLiteWriter``): heavy writes and writes whose work is
/// not bounded (the caller decides, ``StoreWrite/runsBounded(under:)``), every write while the
/// writer has any queued or committing (so writes of one profile keep their order behind a
/// heavy one, and a light write still waits for at most one heavy write), and the writes of a
/// turn that could not have the connection (the writer or maintenance held it, or another
/// process locked the database).
///
/// Safety (`@unchecked Sendable`): `state` is touched only by the thread that owns the turn
/// (`owner`), between its ``begin()`` and ``end()``; ownership passes through `owner`'s
/// acquiring and releasing operations, so the next owner sees what the last one left.
final class TurnWrites: @unchecked Sendable {
    private struct State {
        /// The connection, while the turn holds it.
        var context: WriteContext?
        var inTransaction = false
        /// The writes run in the open transaction, in order.
        var jobs: [any WriteJob] = []
        /// The writes taken and not run yet, in order: they run together (``runTaken(in:)``).
        var taken: [any WriteJob] = []
        /// The connection could not be had this turn: its writes go to the writer.
        var declined = false
        /// The transaction stays open past the turn's end, waiting for the flush under way.
        var holding = false
    }

    private let owner = Atomic<UInt>(0)
    /// Whether a turn may keep its transaction open across a flush (``enableHolding(wake:)``).
    private let mayHold = Atomic<Bool>(false)
    private var state = State()
    private let connection: WriteConnection
    private let pipeline: CommitPipeline
    private let maxBatch: Int
    /// The most writes taken before they run: past a few the caches gain nothing more, and each
    /// write run is a stretch the loop serves no other client.
    static let runTogether = 32

    init(connection: WriteConnection, pipeline: CommitPipeline, maxBatch: Int) {
        self.connection = connection
        self.pipeline = pipeline
        self.maxBatch = max(1, maxBatch)
        state.jobs.reserveCapacity(64)
        state.taken.reserveCapacity(Self.runTogether)
    }

    private static var currentThread: UInt { UInt(pthread_self()) }

    /// The calling thread's turn begins, unless another thread's turn is open (or it goes on
    /// holding its own).
    func begin() {
        let thread = Self.currentThread
        guard owner.load(ordering: .relaxed) != thread else { return }
        _ = owner.compareExchange(expected: 0, desired: thread, ordering: .acquiring)
    }

    /// Lets the calling thread's turns keep a transaction open across a flush, waking it with
    /// `wake` once the flush is done (the event loop, when it starts).
    func enableHolding(wake: @escaping @Sendable () -> Void) {
        pipeline.syncer?.wakeTurns(with: wake)
        mayHold.store(true, ordering: .releasing)
    }

    /// No turn holds a transaction from now on; one held by the calling thread commits now (the
    /// event loop, when it stops).
    func disableHolding() {
        mayHold.store(false, ordering: .releasing)
        pipeline.syncer?.wakeTurns(with: nil)
        end()
    }

    /// Takes `job` into the turn's transaction, to run before it commits, when the calling thread
    /// owns the turn and the connection can be had without waiting; `false` leaves it to the
    /// caller (the writer).
    /// - Parameter writerIdle: whether the writer has nothing queued or committing.
    func run(_ job: any WriteJob, writerIdle: Bool) -> Bool {
        guard owner.load(ordering: .relaxed) == Self.currentThread, !state.declined else { return false }
        guard let context = state.context ?? take(writerIdle: writerIdle) else { return false }
        let sql = context.connection
        do {
            if !state.inTransaction {
                try sql.run("BEGIN IMMEDIATE")
                state.inTransaction = true
            }
        } catch {
            // Another process holds the database's write lock (busy_timeout is 0 here): the
            // writer, which may wait, takes this turn's writes.
            giveBack()
            state.declined = true
            return false
        }
        state.taken.append(job)
        if state.jobs.count + state.taken.count >= maxBatch {
            runTaken(in: context)
            for committed in commit() { committed.finish() }
        } else if state.taken.count >= Self.runTogether {
            runTaken(in: context)
        }
        return true
    }

    /// Runs the writes taken, in order, each in its savepoint: a refused one rolls back alone. A
    /// storage error gives up the transaction (every write run in it and the failing one are
    /// answered with it); the writes after it start a new one.
    private func runTaken(in context: WriteContext) {
        let sql = context.connection
        let taken = state.taken
        state.taken.removeAll(keepingCapacity: true)
        for job in taken {
            do {
                if !state.inTransaction {
                    try sql.run("BEGIN IMMEDIATE")
                    state.inTransaction = true
                }
                try sql.run("SAVEPOINT job")
                if try job.perform(context) { try sql.run("ROLLBACK TO job") }
                try sql.run("RELEASE job")
                state.jobs.append(job)
            } catch {
                // A storage failure may have rolled the transaction back already: give all of it up.
                if state.inTransaction { _ = try? sql.run("ROLLBACK") }
                state.inTransaction = false
                let lost = state.jobs + [job]
                state.jobs.removeAll(keepingCapacity: true)
                for lostJob in lost { lostJob.abandon(error.storeError) }
            }
        }
    }

    /// Ends the calling thread's turn: runs the writes it took, commits them once, lets go of the
    /// connection, and answers them if their commit is durable already (else the syncer does,
    /// after its flush). A turn that holds its transaction for the flush under way runs its
    /// writes at the end of the turn that commits them.
    func end() {
        guard owner.load(ordering: .relaxed) == Self.currentThread else { return }
        if state.inTransaction, state.jobs.count + state.taken.count < maxBatch, mayHold.load(ordering: .acquiring), !connection.isWanted,
           let syncer = pipeline.syncer, syncer.holdForFlush() {
            // Committed at a later turn's end, once the flush under way is done.
            state.holding = true
            return
        }
        state.holding = false
        if let context = state.context, !state.taken.isEmpty { runTaken(in: context) }
        let durable = commit()
        if state.context != nil { giveBack() }
        state.declined = false
        owner.store(0, ordering: .releasing)
        for job in durable { job.finish() }
    }

    private func take(writerIdle: Bool) -> WriteContext? {
        guard writerIdle, let context = connection.tryTakeForTurn() else {
            state.declined = true
            return nil
        }
        state.context = context
        return context
    }

    private func giveBack() {
        state.context = nil
        connection.giveBackFromTurn()
    }

    /// Commits the open transaction; the writes to answer now (see ``CommitPipeline``).
    private func commit() -> [any WriteJob] {
        guard state.inTransaction, let context = state.context else { return [] }
        state.inTransaction = false
        let jobs = state.jobs
        state.jobs.removeAll(keepingCapacity: true)
        do {
            try context.connection.run("COMMIT")
        } catch {
            _ = try? context.connection.run("ROLLBACK")
            for job in jobs { job.abandon(error.storeError) }
            return []
        }
        return pipeline.committed(jobs, context: context)
    }
}
