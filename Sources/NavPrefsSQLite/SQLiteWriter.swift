import CSQLite
import Foundation
import NavPrefsCore
import NavPrefsStore
import Synchronization

/// The writer thread's view of the database: its connection, and what it knows for certain
/// because it is the only writer (profiles that exist).
final class WriteContext {
    let connection: SQLiteConnection
    /// Whether this process claims the file (the service, an import): only then may it write
    /// profile data, which the service keeps in memory and must see every change of.
    let claimsProfiles: Bool
    var knownProfiles: Set<String> = []
    /// Profiles that logged events since the last pruning, whose log may exceed its length limit.
    var profilesWithNewEvents: Set<ProfileName> = []

    init(connection: SQLiteConnection, claimsProfiles: Bool) {
        self.connection = connection
        self.claimsProfiles = claimsProfiles
    }
}

/// What a committed job leaves for after the commit: its events (for the feed), how it changed
/// the counter view (for the cache) and the profiles it claimed ids of (they exist now).
struct CommitEffects {
    let events: [LoggedEvent]
    let counterView: CounterViewChange?
    let claimedProfiles: [String]
}

/// The writer thread: group commit for every write the event loop's turn does not run
/// (``TurnWrites``): writes from tasks and commands, heavy writes, writes whose work is not
/// bounded, and maintenance. Jobs queued while a transaction commits form the next transaction,
/// each inside a savepoint of its own, so one refused write (412, 409) rolls back alone while
/// the others share one commit (and, with ``Durability/full``, one flush: ``CommitPipeline``).
/// It shares the write connection with the loop (``WriteConnection``), taking it per batch.
///
/// Heavy writes (a large request's: ``SQLiteStore/Options/heavyWriteBytes``) do not share: the
/// light writes queued with them commit first, together, and then one heavy write alone, and
/// the writer looks for new light writes again before the next heavy one. So a light write
/// waits for at most one heavy write (the one committing when it came) and its own batch,
/// however many heavy writes other profiles queue (queued in arrival order, one profile's
/// large writes took another profile's increments from 8 ms to 1.6 s, measured). Writes of one profile keep their
/// order: a light write queued behind a heavy write of its profile waits for it, and a write
/// that names no profile never passes a heavy one.
final class SQLiteWriter: Sendable {
    private let queue = JobQueue<any WriteJob>()
    private let stopped = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    /// Jobs submitted and not yet committed or given up: while there are any, the event loop's
    /// writes queue behind them instead of passing them in a turn.
    private let unfinished = Atomic<Int>(0)

    init() {}

    /// Whether no job is queued or committing.
    var isIdle: Bool { unfinished.load(ordering: .relaxed) == 0 }

    /// Opens the connection with `open` on a new thread, hands it to `connection`, and starts
    /// taking jobs.
    /// - Parameters:
    ///   - maintenance: run on the writer thread between batches, about every
    ///     `maintenanceInterval` (pruning the event log), in its own transactions.
    ///   - pipeline: what follows each commit (``CommitPipeline``).
    func start(open: @escaping @Sendable () throws -> WriteContext, connection: WriteConnection, maxBatch: Int,
               maintenanceInterval: Duration, maintenance: @escaping @Sendable (WriteContext) -> Void,
               pipeline: CommitPipeline) throws {
        let queue = self.queue
        let interval = Double(maintenanceInterval.components.seconds) + Double(maintenanceInterval.components.attoseconds) / 1e18
        try startWorkerThread(name: "sqlite-writer", exited: stopped, setup: { connection.install(try open()) }) { [self] _ in
            var nextMaintenance = Date(timeIntervalSinceNow: interval)
            var backlog: [any WriteJob] = []
            var open = true
            while open || !backlog.isEmpty {
                if open {
                    // Waits only when nothing is left to do.
                    let arrived = backlog.isEmpty ? queue.take(upTo: maxBatch, until: nextMaintenance) : queue.takeQueued(upTo: maxBatch)
                    if let arrived { backlog += arrived } else { open = false }
                }
                let (light, rest) = Self.lightFirst(backlog, upTo: maxBatch)
                if !light.isEmpty { commit(light[...], on: connection, pipeline: pipeline) }
                backlog = rest
                // What is left starts with a heavy write (the light ones left wait behind one).
                if let heavy = backlog.first {
                    commit([heavy], on: connection, pipeline: pipeline)
                    backlog.removeFirst()
                }
                if Date() >= nextMaintenance {
                    connection.withConnection(maintenance)
                    nextMaintenance = Date(timeIntervalSinceNow: interval)
                }
            }
        }
        started.store(true, ordering: .releasing)
    }

    /// Runs `body` in the next transaction and calls `completion` once that transaction
    /// committed (at the store's durability) or was refused: on the writer thread, or on the
    /// syncer's after its flush (``CommitPipeline``).
    /// - Parameters:
    ///   - profile: the one profile `body` changes, or `nil` when it may touch any.
    ///   - heavy: whether it commits alone, after the light writes (see the type).
    func write<Value: Sendable>(
        profile: String? = nil, heavy: Bool = false,
        _ body: @escaping @Sendable (SQLiteTransaction) throws -> WriteOutcome<Value>,
        completion: @escaping StoreCompletion<Value>
    ) {
        submit(PendingWrite(profile: profile, heavy: heavy, body: body, completion: completion))
    }

    /// Queues `job` for the next transaction.
    func submit(_ job: any WriteJob) {
        unfinished.add(1, ordering: .relaxed)
        if !queue.submit(job) {
            unfinished.subtract(1, ordering: .relaxed)
            job.abandon(.closed)
        }
    }

    /// The light writes of `backlog` that may commit now, before the heavy ones queued with
    /// them (at most `limit`, in order), and the rest, in order. A light write stays behind
    /// when a heavy write of its profile (or one that names no profile) is before it, and a
    /// write that names no profile stays behind any heavy one.
    static func lightFirst(_ backlog: [any WriteJob], upTo limit: Int) -> (light: [any WriteJob], rest: [any WriteJob]) {
        var light: [any WriteJob] = [], rest: [any WriteJob] = []
        var heavyProfiles: Set<String> = []
        var behindAll = false
        for job in backlog {
            if job.heavy {
                if let profile = job.profile { heavyProfiles.insert(profile) } else { behindAll = true }
                rest.append(job)
            } else if behindAll || light.count == limit || (job.profile.map(heavyProfiles.contains) ?? !heavyProfiles.isEmpty) {
                // A full batch, or a write that names no profile, sends every later write behind
                // it too: one profile's writes keep their order.
                if light.count == limit || job.profile == nil { behindAll = true }
                rest.append(job)
            } else {
                light.append(job)
            }
        }
        return (light, rest)
    }

    func write<Value: Sendable>(
        _ body: @escaping @Sendable (SQLiteTransaction) throws -> WriteOutcome<Value>
    ) async throws(StoreError) -> Value {
        try await awaitCompletion { write(body, completion: $0) }
    }

    /// Finishes every queued write, then stops the thread (the connection stays open: its
    /// owner, ``WriteConnection``, closes it).
    func close() {
        queue.close()
        if started.exchange(false, ordering: .acquiringAndReleasing) { stopped.wait() }
    }

    private func commit(_ batch: ArraySlice<any WriteJob>, on shared: WriteConnection, pipeline: CommitPipeline) {
        defer { unfinished.subtract(batch.count, ordering: .relaxed) }
        var failure: StoreError?
        let durable: [any WriteJob]? = shared.withConnection { context in
            do {
                return try Self.run(batch, in: context, pipeline: pipeline)
            } catch {
                failure = error.storeError
                return []
            }
        }
        if durable == nil { failure = .closed }
        if let failure {
            for job in batch { job.abandon(failure) }
            return
        }
        // Answered once the connection is free again (the loop may want it).
        for job in durable ?? [] { job.finish() }
    }

    /// One transaction: the jobs, each in a savepoint when they are several, then `COMMIT`.
    /// Throws a storage failure, after rolling back; the caller answers every job with it.
    private static func run(_ batch: ArraySlice<any WriteJob>, in context: WriteContext, pipeline: CommitPipeline) throws
        -> [any WriteJob] {
        let connection = context.connection
        try connection.run("BEGIN IMMEDIATE")
        let isolate = batch.count > 1
        do {
            for job in batch {
                // Transaction control goes through cached prepared statements too: parsing them
                // again for every job showed in profiles.
                if isolate { try connection.run("SAVEPOINT job") }
                let refused = try job.perform(context)
                if isolate {
                    if refused { try connection.run("ROLLBACK TO job") }
                    try connection.run("RELEASE job")
                }
            }
            if !isolate && batch.first?.effects == nil {
                // One refused write: nothing to keep, nothing to wait for.
                try connection.run("ROLLBACK")
                return Array(batch)
            }
            try connection.run("COMMIT")
        } catch {
            // A storage failure (I/O, disk full, busy) may have rolled the transaction back
            // already: give up the whole batch, none of it was acknowledged.
            _ = try? connection.run("ROLLBACK")
            throw error
        }
        // Committed: effects first (the feed, caches), in commit order, then the answers.
        return pipeline.committed(Array(batch), context: context)
    }
}

/// A queued write, type-erased for the writer's queue.
protocol WriteJob: Sendable {
    /// The profile it changes; `nil` when it may touch any.
    var profile: String? { get }
    /// Whether it commits alone, after the light writes queued with it.
    var heavy: Bool { get }
    /// Runs inside the transaction; returns `true` if the job refused (its changes must be rolled
    /// back). Throws only for storage failures.
    func perform(_ context: WriteContext) throws -> Bool
    /// What the job leaves for after the commit; `nil` if it refused.
    var effects: CommitEffects? { get }
    /// After the commit: answers the caller.
    func finish()
    /// The transaction failed: answers the caller with `error`.
    func abandon(_ error: StoreError)
}

/// Safety (`@unchecked Sendable`): `outcome` and `effects` are written by the thread that runs
/// the job (the writer, or the event loop in its turn) and read by it or, after a hand-over
/// through the syncer's queue (a lock), by the syncer; the completion is called exactly once,
/// by `finish` or `abandon`.
final class PendingWrite<Value: Sendable>: WriteJob, @unchecked Sendable {
    let profile: String?
    let heavy: Bool
    let body: @Sendable (SQLiteTransaction) throws -> WriteOutcome<Value>
    let completion: StoreCompletion<Value>
    var outcome: Result<Value, StoreError>?
    var effects: CommitEffects?

    init(profile: String?, heavy: Bool, body: @escaping @Sendable (SQLiteTransaction) throws -> WriteOutcome<Value>,
         completion: @escaping StoreCompletion<Value>) {
        self.profile = profile
        self.heavy = heavy
        self.body = body
        self.completion = completion
    }

    func perform(_ context: WriteContext) throws -> Bool {
        let transaction = SQLiteTransaction(connection: context.connection, writer: context)
        do {
            let written = try body(transaction)
            outcome = .success(written.value)
            effects = CommitEffects(events: written.events, counterView: written.counterView,
                                    claimedProfiles: transaction.claimedProfiles)
            return false
        } catch let error as StoreError {
            outcome = .failure(error)
            effects = nil
            return true
        }
    }

    func finish() {
        completion(outcome ?? .failure(.internal(reason: "a write finished without running")))
    }

    func abandon(_ error: StoreError) {
        completion(.failure(error))
    }
}

extension Error {
    /// Any error from inside a store, as the ``StoreError`` callers see.
    var storeError: StoreError {
        switch self {
        case let error as StoreError: error
        case let error as SQLiteError: error.storeError
        default: .internal(reason: String(describing: self))
        }
    }
}
