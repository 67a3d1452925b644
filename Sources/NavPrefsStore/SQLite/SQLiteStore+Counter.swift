public import NavPrefsCore

extension SQLiteStore {
    public func cachedCounter(of profile: ProfileName) -> CounterLookup? {
        switch counters.lookup(profile) {
        case .present(let state)?: .found(state)
        case .absent?: .profileNotFound
        case nil: nil
        }
    }

    public func counter(of profile: ProfileName) async throws(StoreError) -> CounterState {
        let generation = counters.generation
        let slot = try await readers.read { connection in
            try connection.transaction { try Self.readSlot(WellKnownKey.counter, of: profile, in: connection) }
        }
        counters.fill(profile, with: slot.map { .present(CounterState(profile: profile, slot: $0)) } ?? .absent, readAt: generation)
        guard let slot else { throw .profileNotFound(profile) }
        return CounterState(profile: profile, slot: slot)
    }

    public func apply(_ operation: CounterOperation, toCounterOf profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> CounterChange {
        let cache = counters
        return try await writer.write { context in
            let connection = context.connection
            // A profile comes into being on its first write, but never through a conditional
            // write: If-Match needs a current representation (RFC 9110 §13.1.1).
            if precondition == nil {
                try Self.createProfileIfNeeded(profile, in: context)
            } else if precondition == .absent {
                // If-None-Match: * on the counter: it exists whenever its profile does.
                if let slot = try Self.readSlot(WellKnownKey.counter, of: profile, in: connection) {
                    throw StoreError.preconditionFailed(current: slot.version ?? .initial)
                }
                try Self.createProfileIfNeeded(profile, in: context)
            }
            guard let eventID = try Self.nextEventID(of: profile, in: connection) else {
                throw StoreError.preconditionFailed(current: nil)
            }
            let range = operation.admissibleRange
            let list: ([Version]) -> SQLiteValue = { .text("[" + $0.map { String($0.rawValue) }.joined(separator: ",") + "]") }
            let versions: SQLiteValue = switch precondition {
            case nil, .absent?, .noneOf?: .null
            case .exists?: .text("[]")
            case .version(let versions)?: list(versions)
            }
            let excluded: SQLiteValue = if case .noneOf(let versions)? = precondition { list(versions) } else { .null }
            // One statement reads the counter through its layers (stored numIndex, else its
            // registered default, else 0), applies the range guard that keeps the result within
            // Int64 (C-7) and the If-Match guard, and writes: no read-modify-write in Swift.
            let updated = try connection.queryFirst("""
                WITH current AS (
                    SELECT CASE WHEN s.value IS NOT NULL THEN CAST(json_extract(s.value, '$') AS INTEGER)
                                ELSE coalesce(CAST(json_extract(d.value, '$') AS INTEGER), 0) END AS value,
                           CASE WHEN s.value IS NOT NULL THEN s.version
                                ELSE max(coalesce(s.version, 0), p.defaults_version) END AS version
                    FROM profiles p
                    LEFT JOIN preferences s ON s.profile = p.name AND s.key = 'numIndex'
                    LEFT JOIN registered_defaults d ON d.profile = p.name AND d.key = 'numIndex'
                    WHERE p.name = ?1)
                INSERT INTO preferences (profile, key, value, version)
                SELECT ?1, 'numIndex', json_quote(CAST(coalesce(?2, current.value + ?3) AS TEXT)), ?8
                FROM current
                WHERE current.value BETWEEN ?4 AND ?5
                  AND (?6 IS NULL OR ?7 = 1 OR current.version IN (SELECT value FROM json_each(?6)))
                  AND (?9 IS NULL OR current.version NOT IN (SELECT value FROM json_each(?9)))
                ON CONFLICT (profile, key) DO UPDATE SET value = excluded.value, version = excluded.version
                RETURNING CAST(json_extract(value, '$') AS INTEGER), version
                """,
                .text(profile.rawValue),
                operation.assignedValue.map { .integer($0) } ?? .null,
                .integer(operation.delta ?? 0),
                .integer(range.lowerBound), .integer(range.upperBound),
                versions, .integer(precondition == .exists ? 1 : 0),
                .integer(eventID), excluded
            ) { row in CounterState(profile: profile, counter: Counter(row.int64(0)), version: Version(row.int64(1))) }
            guard let state = updated else {
                throw try Self.explainCounterRefusal(operation, profile: profile, precondition: precondition, in: connection)
            }
            let logged = try Self.log(.counter(operation, state), id: eventID, for: profile, in: connection)
            return Committed(value: CounterChange(operation: operation, state: state, eventID: eventID), events: [logged]) { context in
                context.knownProfiles.insert(profile.rawValue)
                cache.committed(state)
            }
        }
    }

    /// Why the guarded statement changed nothing, read in the same transaction.
    private static func explainCounterRefusal(
        _ operation: CounterOperation, profile: ProfileName, precondition: WritePrecondition?, in connection: SQLiteConnection
    ) throws -> StoreError {
        StoreRules.counterRefusal(operation, profile: profile, precondition: precondition,
                                  slot: try readSlot(WellKnownKey.counter, of: profile, in: connection))
    }
}
