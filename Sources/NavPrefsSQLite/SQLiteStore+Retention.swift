import Foundation
import NavPrefsCore
public import NavPrefsStore

extension SQLiteStore {
    /// Deletes the events the retention no longer keeps (see ``StorePolicy/retention``).
    /// The writer also does this on its own every ``StorePolicy/pruneInterval``. Returns how many went.
    @discardableResult
    public func pruneEventLog() async throws(StoreError) -> Int {
        let retention = options.policy.retention
        return try await writer.write { transaction in
            guard let context = transaction.writeContext else { throw StoreError.internal(reason: "pruning outside the writer") }
            return WriteOutcome(try Self.pruneStep(context, retention, limit: .max))
        }
    }

    /// One bounded pruning transaction, repeated while whole batches go (writer thread).
    static func pruneInTransaction(_ context: WriteContext, _ retention: EventRetention) throws -> Int {
        var total = 0
        while true {
            try context.connection.run("BEGIN IMMEDIATE")
            do {
                let deleted = try pruneStep(context, retention, limit: 10_000)
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
    /// `count` of each profile that logged since the last pruning.
    private static func pruneStep(_ context: WriteContext, _ retention: EventRetention, limit: Int) throws -> Int {
        let connection = context.connection
        let cutoff = Int64((Date().timeIntervalSince1970 * 1000).rounded()) - Int64(retention.age.components.seconds) * 1000
        try connection.run("""
            DELETE FROM events WHERE (profile, id) IN
                (SELECT profile, id FROM events WHERE created_at < ?1 ORDER BY created_at LIMIT ?2)
            """, .integer(cutoff), .integer(Int64(min(limit, Int(Int64.max)))))
        var deleted = connection.changes
        for profile in context.profilesWithNewEvents {
            try connection.run("""
                DELETE FROM events WHERE profile = ?1
                  AND id <= (SELECT last_event_id FROM profiles WHERE name = ?1) - ?2
                """, .text(profile.rawValue), .integer(Int64(retention.count)))
            deleted += connection.changes
        }
        context.profilesWithNewEvents = []
        return deleted
    }
}
