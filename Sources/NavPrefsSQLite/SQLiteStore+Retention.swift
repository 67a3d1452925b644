import Foundation
import NavPrefsCore
public import NavPrefsStore

extension SQLiteStore {
    /// Deletes the events the retention no longer keeps (see ``StorePolicy/retention``), and the
    /// idempotency keys older than their window. The writer also does this on its own every
    /// ``StorePolicy/pruneInterval``. Returns how many events went.
    @discardableResult
    public func pruneEventLog() async throws(StoreError) -> Int {
        let policy = options.policy
        return try await writer.write { transaction in
            guard let context = transaction.writeContext else { throw StoreError.internal(reason: "pruning outside the writer") }
            return WriteOutcome(try Self.pruneStep(context, policy, limit: .max))
        }
    }

    /// One bounded pruning transaction, repeated while whole batches go (writer thread).
    static func pruneInTransaction(_ context: WriteContext, _ policy: StorePolicy) throws -> Int {
        var total = 0
        while true {
            try context.connection.run("BEGIN IMMEDIATE")
            do {
                let deleted = try pruneStep(context, policy, limit: 10_000)
                try context.connection.run("COMMIT")
                total += deleted
                if deleted < 10_000 { return total }
            } catch {
                _ = try? context.connection.run("ROLLBACK")
                throw error
            }
        }
    }

    /// Deletes up to `limit` events older than the age limit, then the events beyond the newest
    /// `count` (and beyond the bound in bytes) of each profile that logged since the last
    /// pruning, then up to `limit` expired idempotency keys. Answers how many events went.
    private static func pruneStep(_ context: WriteContext, _ policy: StorePolicy, limit: Int) throws -> Int {
        let connection = context.connection, retention = policy.retention
        _ = try StoreMaintenance.pruneIdempotencyKeys(olderThan: policy.limits.idempotencyWindow, limit: min(limit, 1_000_000),
                                                      in: SQLiteTransaction(connection: connection, writer: context))
        let cutoff = Int64((Date().timeIntervalSince1970 * 1000).rounded()) - Int64(retention.age.components.seconds) * 1000
        try connection.run("""
            DELETE FROM events WHERE (profile, id) IN
                (SELECT profile, id FROM events WHERE created_at < ?1 ORDER BY created_at LIMIT ?2)
            """, .integer(cutoff), .integer(Int64(min(limit, Int(Int64.max)))))
        var deleted = connection.changes
        let transaction = SQLiteTransaction(connection: connection, writer: context)
        for profile in context.profilesWithNewEvents {
            try connection.run("""
                DELETE FROM events WHERE profile = ?1
                  AND id <= (SELECT last_event_id FROM profiles WHERE name = ?1) - ?2
                """, .text(profile.rawValue), .integer(Int64(retention.count)))
            deleted += connection.changes
            // Writes keep the bound in bytes themselves; events logged otherwise (expiry) here.
            try EventLogSteps.trim(profile, limits: policy.limits, in: transaction)
            deleted += connection.changes
        }
        context.profilesWithNewEvents = []
        return deleted
    }

    /// Expires idle sessions (``StoreMaintenance/expireIdleSessions(idleFor:limit:in:)``) in bounded
    /// transactions of their own on the writer thread, repeated while whole batches go; their
    /// events go to `publish` after each commit, as a write's do. Returns how many went.
    static func expireInTransaction(_ context: WriteContext, idle: Duration, publish: ([CommitEffects]) -> Void) throws -> Int {
        var total = 0
        while true {
            try context.connection.run("BEGIN IMMEDIATE")
            let transaction = SQLiteTransaction(connection: context.connection, writer: context)
            let events: [LoggedEvent]
            do {
                events = try StoreMaintenance.expireIdleSessions(idleFor: idle, limit: 100, in: transaction)
                try context.connection.run("COMMIT")
            } catch {
                _ = try? context.connection.run("ROLLBACK")
                throw error
            }
            if !events.isEmpty {
                publish([CommitEffects(events: events, counterView: nil, claimedProfiles: transaction.claimedProfiles)])
            }
            total += events.count
            if events.count < 100 { return total }
        }
    }
}
