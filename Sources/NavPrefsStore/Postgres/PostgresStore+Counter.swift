public import NavPrefsCore

extension PostgresStore {
    public func counter(of profile: ProfileName) async throws(StoreError) -> CounterState {
        try await read { connection in
            guard let slot = try Self.readSlot(WellKnownKey.counter, of: profile, in: connection) else {
                throw StoreError.profileNotFound(profile)
            }
            return CounterState(profile: profile, slot: slot)
        }
    }

    public func apply(_ operation: CounterOperation, toCounterOf profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> CounterChange {
        try await write { connection in
            // A profile comes into being on its first write, but never through a conditional
            // write: If-Match needs a current representation (RFC 9110 §13.1.1). The counter exists
            // whenever its profile does, so If-None-Match: * admits only a write that creates it.
            let creating = precondition == nil || precondition == .absent
            guard let claim = try Self.claimEventID(of: profile, creating: creating, touchingPreferences: true, in: connection) else {
                throw StoreError.preconditionFailed(current: nil)
            }
            if precondition == .absent && !claim.created {
                let slot = try Self.readSlot(WellKnownKey.counter, of: profile, in: connection)
                throw StoreError.preconditionFailed(current: slot?.version ?? .initial)
            }
            let range = operation.admissibleRange
            let versions: PostgresValue = if case .version(let versions)? = precondition {
                .integers(versions.map(\.rawValue))
            } else {
                .null
            }
            let excluded: PostgresValue = if case .noneOf(let versions)? = precondition { .integers(versions.map(\.rawValue)) } else { .null }
            // One statement reads the counter through its layers (stored numIndex, else its
            // registered default, else 0), applies the range guard that keeps the result within
            // Int64 (C-7) and the If-Match guard, and writes. It runs after the claim above,
            // under the profile's lock, so no other write can come between its read and its write.
            let row = try connection.queryFirst("""
                WITH current AS (
                    SELECT CASE WHEN s.value IS NOT NULL THEN (s.value::json #>> '{}')::bigint
                                ELSE coalesce((d.value::json #>> '{}')::bigint, 0) END AS value,
                           CASE WHEN s.value IS NOT NULL THEN s.version
                                ELSE greatest(coalesce(s.version, 0), p.defaults_version) END AS version
                    FROM profiles p
                    LEFT JOIN preferences s ON s.profile = p.name AND s.key = 'numIndex'
                    LEFT JOIN registered_defaults d ON d.profile = p.name AND d.key = 'numIndex'
                    WHERE p.name = $1)
                INSERT INTO preferences (profile, key, value, version)
                SELECT $1, 'numIndex', to_json(coalesce($2::bigint, (current.value::numeric + $3::bigint)::bigint)::text)::text, $4::bigint
                FROM current
                WHERE current.value BETWEEN $5::bigint AND $6::bigint
                  AND ($7::bigint[] IS NULL OR current.version = ANY($7::bigint[]))
                  AND ($8::bigint[] IS NULL OR current.version <> ALL($8::bigint[]))
                ON CONFLICT (profile, key) DO UPDATE SET value = excluded.value, version = excluded.version
                RETURNING (value::json #>> '{}')::bigint, version
                """,
                .text(profile.rawValue),
                operation.assignedValue.map { .integer($0) } ?? .null,
                .integer(operation.delta ?? 0),
                .integer(claim.eventID),
                .integer(range.lowerBound), .integer(range.upperBound),
                versions, excluded)
            guard let row else {
                throw try Self.explainCounterRefusal(operation, profile: profile, precondition: precondition, in: connection)
            }
            let state = CounterState(profile: profile, counter: Counter(try row.int64(0)), version: Version(try row.int64(1)))
            let logged = try Self.log(.counter(operation, state), id: claim.eventID, for: profile, in: connection)
            return Written(CounterChange(operation: operation, state: state, eventID: claim.eventID), event: logged)
        }
    }

    /// Why the guarded statement changed nothing, read in the same transaction.
    private static func explainCounterRefusal(
        _ operation: CounterOperation, profile: ProfileName, precondition: WritePrecondition?, in connection: PostgresConnection
    ) throws -> StoreError {
        StoreRules.counterRefusal(operation, profile: profile, precondition: precondition,
                                  slot: try readSlot(WellKnownKey.counter, of: profile, in: connection))
    }
}
