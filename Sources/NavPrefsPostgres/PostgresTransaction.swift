import NavPrefsCore
import NavPrefsStore

/// A transaction on one PostgreSQL connection, as the store algorithm sees it.
struct PostgresTransaction: StoreTransaction {
    let connection: PostgresConnection

    func rows(_ statement: StoreStatement, _ values: [StatementValue]) throws -> [StoreRow] {
        try connection.query(PostgresStatements.sql(statement), parameters: values)
    }

    /// One statement creates or updates the profile's row and takes its next id. The row's lock
    /// serializes a profile's writes and orders their commits by id; the statements after it see
    /// everything committed before (READ COMMITTED takes a new snapshot per statement).
    func claimEventID(of profile: ProfileName, creating: Bool, touchingPreferences: Bool) throws -> EventClaim? {
        let row = try connection.queryFirst(creating ? PostgresStatements.claimCreating : PostgresStatements.claimExisting,
                                            .text(profile.rawValue), .bool(touchingPreferences))
        guard let row else { return nil }
        return EventClaim(eventID: try row.int64(0), created: try row.bool(1), defaultsVersion: Version(try row.int64(2)))
    }
}

extension PostgresConnection {
    /// Runs `body` in a transaction (`begin` chooses its kind), committing if it returns and
    /// rolling back if it throws. `begin` travels with the transaction's first statement, in
    /// one round trip (see ``holdBack(_:)``).
    ///
    /// A connection lost before `COMMIT` was sent is reported as safe to retry: the server
    /// rolls back what it had of the transaction, so the pool may run the job again on a new
    /// connection. This is what a pooled connection that the server closed while idle (a
    /// restart) looks like. A loss during `COMMIT` is not: the commit may have happened.
    ///
    /// `committing` runs just before `COMMIT` is sent, with what `body` returned, and
    /// `notCommitted` if `COMMIT` then fails (see ``EventSequencer/committing(_:)``).
    func transaction<T>(_ begin: String = "BEGIN", _ body: () throws -> T,
                        committing: (T) -> Void = { _ in }, notCommitted: (T) -> Void = { _ in }) throws -> T {
        holdBack(begin)
        let result: T
        do {
            result = try body()
        } catch var error as PostgresError {
            abandonTransaction()
            if error.isConnectionLost { error.safeToRetry = true }
            throw error
        } catch {
            abandonTransaction()
            throw error
        }
        committing(result)
        do {
            try execute("COMMIT")
        } catch {
            notCommitted(result)
            throw error
        }
        return result
    }

    /// Rolls back the transaction in progress, if the connection still works.
    func abandonTransaction() {
        dropHeldBack()
        if isAlive { _ = try? execute("ROLLBACK") }
    }

    /// Logged events of `profile` with ids in `after + 1 ... last`, oldest first.
    func events(of profile: ProfileName, after id: Int64, upTo last: Int64) throws -> [LoggedEvent] {
        try query(PostgresStatements.eventsBetween, .text(profile.rawValue), .integer(id), .integer(last)).map { row in
            try TransactionSteps.loggedEvent(row, of: profile)
        }
    }

    /// Every logged event after each profile's position, per profile oldest first (catch-ups).
    func events(after positions: [ProfileName: Int64]) throws -> [ProfileName: [LoggedEvent]] {
        let profiles = Array(positions.keys)
        let rows = try query(PostgresStatements.eventsAfterPositions, .texts(profiles.map(\.rawValue)),
                             .integers(profiles.map { positions[$0] ?? 0 }))
        var found: [ProfileName: [LoggedEvent]] = [:]
        for row in rows {
            guard let profile = try? ProfileName(try row.text(0)) else { continue }
            found[profile, default: []].append(try TransactionSteps.loggedEvent(StoreRow(Array(row.cells.dropFirst())), of: profile))
        }
        return found
    }
}
