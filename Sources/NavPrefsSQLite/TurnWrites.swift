import Glibc
import NavPrefsStore
import Synchronization

/// The writes of one turn of the event loop, the way Redis makes a durable write:
/// a light write runs its statements at once, on the loop, in the turn's open transaction and
/// a savepoint of its own; when the turn ends (libmicrohttpd's run returned) the transaction
/// commits once, and the turn's writes are answered after that commit is durable
/// (``CommitPipeline``: at once with ``Durability/normal``, after the ``WALSyncer``'s flush with
/// ``Durability/full``). No hand-off to the writer thread and back, no wake-up per write.
///
/// A refused write (412, 409) rolls back its savepoint alone and is answered with the rest, after
/// the commit. A storage error rolls the turn's transaction back: every write that ran in it is
/// answered with the error and none of it is kept; a later write of the turn starts a new one.
/// At most `maxBatch` writes share a commit.
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

    init(connection: WriteConnection, pipeline: CommitPipeline, maxBatch: Int) {
        self.connection = connection
        self.pipeline = pipeline
        self.maxBatch = max(1, maxBatch)
        state.jobs.reserveCapacity(64)
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

    /// Runs `job` now in the turn's transaction, when the calling thread owns the turn and the
    /// connection can be had without waiting; `false` leaves it to the caller (the writer).
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
        do {
            try sql.run("SAVEPOINT job")
            if try job.perform(context) { try sql.run("ROLLBACK TO job") }
            try sql.run("RELEASE job")
            state.jobs.append(job)
        } catch {
            // A storage failure may have rolled the transaction back already: give all of it up.
            _ = try? sql.run("ROLLBACK")
            state.inTransaction = false
            let lost = state.jobs + [job]
            state.jobs.removeAll(keepingCapacity: true)
            for lostJob in lost { lostJob.abandon(error.storeError) }
            return true
        }
        if state.jobs.count >= maxBatch {
            for committed in commit() { committed.finish() }
        }
        return true
    }

    /// Ends the calling thread's turn: commits its writes once, lets go of the connection, and
    /// answers them if their commit is durable already (else the syncer does, after its flush).
    func end() {
        guard owner.load(ordering: .relaxed) == Self.currentThread else { return }
        if state.inTransaction, state.jobs.count < maxBatch, mayHold.load(ordering: .acquiring), !connection.isWanted,
           let syncer = pipeline.syncer, syncer.holdForFlush() {
            // Committed at a later turn's end, once the flush under way is done.
            state.holding = true
            return
        }
        state.holding = false
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
