import NavPrefsCore
import NavPrefsStore

/// Group commit for PostgreSQL: the writes of single profiles that a worker finds queued in a
/// row run in one transaction, each in a savepoint of its own, and commit together.
///
/// Why: a commit is PostgreSQL's most expensive step for a small write (its WAL record, the
/// flush with `synchronous_commit = on`, the notifications to listeners), and a pool can have
/// only as many transactions open as it has connections. Queued writes sharing one commit is
/// what SQLite's single writer does too.
///
/// What each write keeps as its own: its precondition and its refusal (a refused write rolls
/// back to its savepoint, the others go on), its events and its answer, given once the batch
/// committed. Writes run in the byte order of their profiles (a stable sort: one profile's
/// writes stay in arrival order), so that two batches, on this instance or another, always take
/// profile locks in the same order and never wait for each other in a cycle. A storage failure
/// gives every write of the batch a transaction of its own, as if unbatched.
enum PostgresBatch {
    static func commit(_ batch: [any BatchableWrite], on worker: PostgresWorker) {
        guard batch.count > 1 else {
            batch.first?.runAlone(on: worker)
            return
        }
        let ordered = batch.enumerated().sorted { left, right in
            left.element.profile == right.element.profile
                ? left.offset < right.offset
                : left.element.profile.rawValue.utf8.lexicographicallyPrecedes(right.element.profile.rawValue.utf8)
        }.map(\.element)
        let committedOn: PostgresConnection
        do {
            committedOn = try worker.perform(retry: .ifSafe) { connection in
                try connection.transaction("BEGIN", {
                    for write in ordered {
                        // Savepoints travel with the write's first statement, rollbacks and
                        // releases with the next write's (or the commit): no round trip of their own.
                        connection.holdBack("SAVEPOINT batched")
                        if try write.perform(on: connection) { connection.holdBack("ROLLBACK TO SAVEPOINT batched") }
                        connection.holdBack("RELEASE SAVEPOINT batched")
                    }
                }, committing: { ordered.first?.committing(ordered.flatMap(\.events)) },
                   notCommitted: { ordered.first?.notCommitted(ordered.flatMap(\.events)) })
                return connection
            }
        } catch {
            // Nothing was committed, unless the connection was lost during COMMIT: then, as for
            // an unbatched write, nobody can say, and each write is answered with that error.
            if case .unavailable = error {
                for write in ordered { write.abandon(error) }
            } else {
                for write in ordered { write.runAlone(on: worker) }
            }
            return
        }
        for write in ordered { write.committed(on: committedOn) }
    }
}

/// A queued write of one profile, type-erased for the pool's queue.
protocol BatchableWrite: AnyObject, Sendable {
    var profile: ProfileName { get }
    /// Runs the write's steps in the transaction open on `connection`; `true` if it refused (its
    /// changes must be rolled back). Throws only for storage failures.
    func perform(on connection: PostgresConnection) throws -> Bool
    /// The events it logged (none if it refused).
    var events: [LoggedEvent] { get }
    /// Its batch is about to commit / failed to: tells the store's sequencer about `events`.
    func committing(_ events: [LoggedEvent])
    func notCommitted(_ events: [LoggedEvent])
    /// Its batch committed: publishes its events, then answers.
    func committed(on connection: PostgresConnection)
    /// Runs it in a transaction of its own, and answers.
    func runAlone(on worker: PostgresWorker)
    /// Answers `error`.
    func abandon(_ error: StoreError)
}

/// Safety (`@unchecked Sendable`): `outcome` and `events` are written and read only on the
/// worker thread that took the write; the completion is called exactly once, by
/// `committed`, `runAlone` or `abandon`.
final class PendingPostgresWrite<Value: Sendable>: BatchableWrite, @unchecked Sendable {
    let profile: ProfileName
    private let store: PostgresStore
    private let body: @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>
    private let completion: StoreCompletion<Value>
    private var outcome: Result<Value, StoreError>?
    private(set) var events: [LoggedEvent] = []

    init(profile: ProfileName, store: PostgresStore, body: @escaping @Sendable (any StoreTransaction) throws -> WriteOutcome<Value>,
         completion: @escaping StoreCompletion<Value>) {
        self.profile = profile
        self.store = store
        self.body = body
        self.completion = completion
    }

    func perform(on connection: PostgresConnection) throws -> Bool {
        do {
            let written = try body(PostgresTransaction(connection: connection))
            outcome = .success(written.value)
            events = written.events
            return false
        } catch let error as StoreError {
            outcome = .failure(error)
            events = []
            return true
        }
    }

    func committing(_ events: [LoggedEvent]) { store.sequencer.committing(events) }
    func notCommitted(_ events: [LoggedEvent]) { store.sequencer.notCommitted(events) }

    func committed(on connection: PostgresConnection) {
        store.publish(events, on: connection)
        completion(outcome ?? .failure(.internal(reason: "a write finished without running")))
    }

    func runAlone(on worker: PostgresWorker) {
        let (store, body) = (self.store, self.body)
        completion(Result { () throws(StoreError) -> Value in
            try worker.perform(retry: .ifSafe) { connection in try store.commit(body, on: connection) }
        })
    }

    func abandon(_ error: StoreError) {
        completion(.failure(error))
    }
}
