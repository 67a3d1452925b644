public import NavPrefsCore

/// What each store's pruning runs besides trimming its event log, written once for both
/// dialects: expiring idle navigation sessions and forgetting old idempotency keys.
///
/// An app that opens a session per launch would otherwise fill its profile's 100 sessions for
/// good; expiry deletes a session nobody changed for ``StoreLimits/sessionIdleExpiry``, and logs
/// a `navigation` event (`expire`) for it, so mirrors drop it as they do a deleted one.
public enum StoreMaintenance {
    /// Deletes up to `limit` sessions unchanged for longer than `idle`, least recently changed
    /// first, each with its `expire` event, in `transaction` (a write). Each session is locked
    /// and checked again before it goes: an edit or a deletion that came first (on another
    /// instance, say) keeps or takes it. Returns the events, for the feed once committed.
    public static func expireIdleSessions(idleFor idle: Duration, limit: Int, in transaction: any StoreTransaction) throws
        -> [LoggedEvent] {
        let idleMilliseconds = StatementValue.integer(idle.clockMilliseconds)
        var events: [LoggedEvent] = []
        for row in try transaction.rows(.idleSessions, idleMilliseconds, .integer(Int64(limit))) {
            guard let profile = try? ProfileName(try row.text(0)), let id = try? SessionID(try row.text(1)) else {
                throw StoreError.corrupted(reason: "a stored session row has an invalid profile or id")
            }
            // The session row's lock first, then the profile's, as every session write takes them.
            guard try transaction.firstRow(.idleSessionForUpdate, .text(profile.rawValue), .text(id.rawValue), idleMilliseconds) != nil,
                  let claim = try transaction.claimEventID(of: profile, creating: false, touchingPreferences: false)
            else { continue }
            try transaction.run(.deleteSession, .text(profile.rawValue), .text(id.rawValue))
            events.append(try TransactionSteps.log(.navigation(profile, session: id, action: "expire", version: Version(claim.eventID)),
                                        id: claim.eventID, for: profile, in: transaction))
        }
        return events
    }

    /// Deletes up to `limit` idempotency keys older than `window`; how many went.
    public static func pruneIdempotencyKeys(olderThan window: Duration, limit: Int, in transaction: any StoreTransaction) throws -> Int {
        try IdempotencySteps.prune(olderThan: window, limit: limit, in: transaction)
    }
}

extension TransactionalStore {
    /// Expires idle sessions now, up to `limit` of them in one write (the store's pruning does
    /// this on its own every ``StorePolicy/pruneInterval``). Returns how many went.
    @discardableResult
    public func expireIdleSessions(limit: Int = 100) async throws(StoreError) -> Int {
        let idle = limits.sessionIdleExpiry
        return try await write { transaction in
            let events = try StoreMaintenance.expireIdleSessions(idleFor: idle, limit: limit, in: transaction)
            return WriteOutcome(events.count, events: events)
        }
    }
}
