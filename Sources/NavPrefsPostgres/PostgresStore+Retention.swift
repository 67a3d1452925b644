import NavPrefsCore
public import NavPrefsStore
import Synchronization

extension PostgresStore {
    /// Deletes the events the retention no longer keeps (see ``StorePolicy/retention``):
    /// those older than the age limit, and those beyond the newest `count` of each profile this
    /// instance logged for since its last pruning; and the idempotency keys older than their
    /// window. Every instance prunes on its own every ``StorePolicy/pruneInterval``; deletes of
    /// the same rows by two instances are harmless. Returns how many events went by age and
    /// count (beyond the bound in bytes, which writes keep themselves, they are not counted).
    @discardableResult
    public func pruneEventLog() async throws(StoreError) -> Int {
        let policy = options.policy
        return try await pool.run(retry: .always) { connection in try self.prune(policy, on: connection) }
    }

    /// Bounded deletes, each its own transaction, so pruning never holds locks for long.
    func prune(_ policy: StorePolicy, on connection: PostgresConnection) throws -> Int {
        let retention = policy.retention
        let keys = PostgresTransaction(connection: connection)
        while try StoreMaintenance.pruneIdempotencyKeys(olderThan: policy.limits.idempotencyWindow, limit: 10_000, in: keys) == 10_000 {}
        let batch: Int64 = 10_000
        var total = 0
        let ageMilliseconds = retention.age.components.seconds * 1000
        while true {
            let deleted = try connection.query("""
                WITH gone AS (
                    DELETE FROM events WHERE (profile, id) IN
                        (SELECT profile, id FROM events WHERE created_at < \(PostgresStatements.now) - $1 LIMIT $2)
                    RETURNING 1)
                SELECT count(*) FROM gone
                """, .integer(ageMilliseconds), .integer(batch)).first?.int64(0) ?? 0
            total += Int(deleted)
            if deleted < batch { break }
        }
        let profiles = profilesWithNewEvents.withLock { profiles in
            defer { profiles = [] }
            return Array(profiles)
        }
        do {
            for start in stride(from: 0, to: profiles.count, by: 500) {
                let chunk = profiles[start..<min(start + 500, profiles.count)]
                total += Int(try connection.query("""
                    WITH gone AS (
                        DELETE FROM events e USING profiles p
                        WHERE p.name = ANY($1::text[]) AND e.profile = p.name AND e.id <= p.last_event_id - $2
                        RETURNING 1)
                    SELECT count(*) FROM gone
                    """, .texts(chunk.map(\.rawValue)), .integer(Int64(retention.count))).first?.int64(0) ?? 0)
            }
            // Writes keep the bound in bytes themselves; events logged otherwise (expiry) here.
            for profile in profiles {
                try connection.transaction { try EventLogSteps.trim(profile, limits: policy.limits, in: keys) }
            }
        } catch {
            // Keep the profiles for the next pruning.
            profilesWithNewEvents.withLock { $0.formUnion(profiles) }
            throw error
        }
        return total
    }
}
