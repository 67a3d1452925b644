import CSQLite
import Foundation
import NavPrefsCore

/// The writer thread's view of the database: its connection, and what it knows for certain
/// because it is the only writer (profiles that exist).
final class WriteContext {
    let connection: SQLiteConnection
    var knownProfiles: Set<String> = []
    /// Profiles that logged events since the last pruning, whose log may exceed its length limit.
    var profilesWithNewEvents: Set<ProfileName> = []

    init(connection: SQLiteConnection) { self.connection = connection }
}

/// What a write job hands back from inside the transaction: its result, the events it logged,
/// and what to do once the transaction is committed (update caches), in commit order.
struct Committed<Value> {
    let value: Value
    let events: [LoggedEvent]
    let afterCommit: (WriteContext) -> Void

    init(value: Value, events: [LoggedEvent] = [], afterCommit: @escaping (WriteContext) -> Void = { _ in }) {
        self.value = value
        self.events = events
        self.afterCommit = afterCommit
    }
}

/// The single writer: one thread, one connection, and group commit. Jobs queued while a
/// transaction commits form the next transaction, each inside a savepoint of its own, so one
/// refused write (412, 409) rolls back alone while the others share one commit (and, with
/// `synchronous=FULL`, one flush).
final class SQLiteWriter: Sendable {
    private let queue = JobQueue<any WriteJob>()
    private let stopped = DispatchSemaphore(value: 0)

    /// - Parameter maintenance: run on the writer thread between batches, about every
    ///   `maintenanceInterval` (pruning the event log), in its own transaction.
    init(open: @escaping @Sendable () throws -> WriteContext, maxBatch: Int, feed: EventFeed,
         maintenanceInterval: Duration, maintenance: @escaping @Sendable (WriteContext) -> Void) throws {
        let queue = self.queue
        let interval = Double(maintenanceInterval.components.seconds) + Double(maintenanceInterval.components.attoseconds) / 1e18
        try startWorkerThread(name: "sqlite-writer", exited: stopped, setup: open) { context in
            var nextMaintenance = Date(timeIntervalSinceNow: interval)
            while let batch = queue.take(upTo: maxBatch, until: nextMaintenance) {
                if !batch.isEmpty { Self.commit(batch, in: context, feed: feed) }
                if Date() >= nextMaintenance {
                    maintenance(context)
                    nextMaintenance = Date(timeIntervalSinceNow: interval)
                }
            }
        }
    }

    /// Runs `body` in the next transaction and returns its value once that transaction commits.
    func write<Value: Sendable>(
        _ body: @escaping @Sendable (WriteContext) throws -> Committed<Value>
    ) async throws(StoreError) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, StoreError>, Never>) in
            if !queue.submit(PendingWrite(body: body, continuation: continuation)) {
                continuation.resume(returning: .failure(.closed))
            }
        }
        return try result.get()
    }

    /// Finishes every queued write, then stops the thread (which closes the connection).
    func close() {
        queue.close()
        stopped.wait()
    }

    private static func commit(_ batch: ArraySlice<any WriteJob>, in context: WriteContext, feed: EventFeed) {
        let connection = context.connection
        do {
            try connection.run("BEGIN IMMEDIATE")
        } catch {
            for job in batch { job.abandon(error.storeError) }
            return
        }
        let isolate = batch.count > 1
        for job in batch {
            do {
                // Transaction control goes through cached prepared statements too: parsing them
                // again for every job showed in profiles.
                if isolate { try connection.run("SAVEPOINT job") }
                let refused = try job.perform(context)
                if isolate {
                    if refused { try connection.run("ROLLBACK TO job") }
                    try connection.run("RELEASE job")
                }
            } catch {
                // A storage failure (I/O, disk full, busy) may have rolled the transaction back
                // already: give up the whole batch, none of it was acknowledged.
                _ = try? connection.run("ROLLBACK")
                for job in batch { job.abandon(error.storeError) }
                return
            }
        }
        do {
            if !isolate && batch.first?.wasRefused == true {
                try connection.run("ROLLBACK")
            } else {
                try connection.run("COMMIT")
            }
        } catch {
            _ = try? connection.run("ROLLBACK")
            for job in batch { job.abandon(error.storeError) }
            return
        }
        // Committed: announce the batch's events (in commit order) before anyone is answered.
        let events = batch.flatMap(\.committedEvents)
        for event in events { context.profilesWithNewEvents.insert(event.profile) }
        feed.publish(events)
        for job in batch { job.finish(context) }
    }
}

/// A queued write, type-erased for the writer's queue.
protocol WriteJob: Sendable {
    /// Runs inside the transaction; returns `true` if the job refused (its changes must be rolled
    /// back). Throws only for storage failures.
    func perform(_ context: WriteContext) throws -> Bool
    var wasRefused: Bool { get }
    /// The events the job logged, if it was not refused.
    var committedEvents: [LoggedEvent] { get }
    /// After the commit: runs the after-commit effects and answers the caller.
    func finish(_ context: WriteContext)
    /// The transaction failed: answers the caller with `error`.
    func abandon(_ error: StoreError)
}

/// Safety (`@unchecked Sendable`): `outcome` is written and read only on the writer thread;
/// the continuation is resumed exactly once, by `finish` or `abandon`.
private final class PendingWrite<Value: Sendable>: WriteJob, @unchecked Sendable {
    let body: @Sendable (WriteContext) throws -> Committed<Value>
    let continuation: CheckedContinuation<Result<Value, StoreError>, Never>
    var outcome: Result<Committed<Value>, StoreError>?

    init(body: @escaping @Sendable (WriteContext) throws -> Committed<Value>,
         continuation: CheckedContinuation<Result<Value, StoreError>, Never>) {
        self.body = body
        self.continuation = continuation
    }

    func perform(_ context: WriteContext) throws -> Bool {
        do {
            outcome = .success(try body(context))
            return false
        } catch let error as StoreError {
            outcome = .failure(error)
            return true
        }
    }

    var wasRefused: Bool {
        if case .failure = outcome { true } else { false }
    }

    var committedEvents: [LoggedEvent] {
        if case .success(let committed)? = outcome { committed.events } else { [] }
    }

    func finish(_ context: WriteContext) {
        switch outcome {
        case .success(let committed)?:
            committed.afterCommit(context)
            continuation.resume(returning: .success(committed.value))
        case .failure(let error)?:
            continuation.resume(returning: .failure(error))
        case nil:
            continuation.resume(returning: .failure(.internal(reason: "a write finished without running")))
        }
    }

    func abandon(_ error: StoreError) {
        continuation.resume(returning: .failure(error))
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
