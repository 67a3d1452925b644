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
        let found = try await readers.read { connection in
            try connection.queryFirst("SELECT value, version FROM counters WHERE profile = ?1", .text(profile.rawValue)) { row in
                CounterState(profile: profile, counter: Counter(row.int64(0)), version: Version(row.int64(1)))
            }
        }
        counters.fill(profile, with: found.map { .present($0) } ?? .absent, readAt: generation)
        guard let found else { throw .profileNotFound(profile) }
        return found
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
            }
            let range = operation.admissibleRange
            let versions: SQLiteValue = switch precondition {
            case nil: .null
            case .exists?: .text("[]")
            case .version(let versions)?: .text("[" + versions.map { String($0.rawValue) }.joined(separator: ",") + "]")
            }
            let anyVersion: Int64 = precondition == .exists ? 1 : 0
            // One statement: the range guard keeps the result within Int64 (C-7) and the version
            // guard applies If-Match atomically with the change.
            let updated = try connection.queryFirst("""
                UPDATE counters SET value = coalesce(?2, value + ?3), version = version + 1
                WHERE profile = ?1 AND value BETWEEN ?4 AND ?5
                  AND (?6 IS NULL OR ?7 = 1 OR version IN (SELECT value FROM json_each(?6)))
                RETURNING value, version
                """,
                .text(profile.rawValue),
                operation.assignedValue.map { .integer($0) } ?? .null,
                .integer(operation.delta ?? 0),
                .integer(range.lowerBound), .integer(range.upperBound),
                versions, .integer(anyVersion)
            ) { row in CounterState(profile: profile, counter: Counter(row.int64(0)), version: Version(row.int64(1))) }
            guard let state = updated else {
                throw try Self.explainRefusal(operation, profile: profile, precondition: precondition, in: connection)
            }
            let eventID = try Self.log(.counter(operation, state), for: profile, in: connection)
            return Committed(value: CounterChange(operation: operation, state: state, eventID: eventID)) { context in
                context.knownProfiles.insert(profile.rawValue)
                cache.committed(state)
            }
        }
    }

    /// Why the guarded UPDATE changed nothing, read in the same transaction.
    private static func explainRefusal(
        _ operation: CounterOperation, profile: ProfileName, precondition: WritePrecondition?, in connection: SQLiteConnection
    ) throws -> StoreError {
        let current = try connection.queryFirst("SELECT value, version FROM counters WHERE profile = ?1", .text(profile.rawValue)) {
            (value: $0.int64(0), version: Version($0.int64(1)))
        }
        guard let current else { return .preconditionFailed(current: nil) }
        if let precondition, !precondition.admits(current.version) {
            return .preconditionFailed(current: current.version)
        }
        return .counter(.outOfRange(current: current.value, operation: operation))
    }

    /// Creates the profile's rows unless the writer already knows it exists.
    static func createProfileIfNeeded(_ profile: ProfileName, in context: WriteContext) throws {
        guard !context.knownProfiles.contains(profile.rawValue) else { return }
        try context.connection.run(
            "INSERT INTO profiles (name, created_at, last_event_id) VALUES (?1, ?2, 0) ON CONFLICT DO NOTHING",
            .text(profile.rawValue), .integer(now()))
        try context.connection.run(
            "INSERT INTO counters (profile, value, version) VALUES (?1, 0, 0) ON CONFLICT DO NOTHING",
            .text(profile.rawValue))
    }

    /// Appends `event` to the profile's log; returns its id.
    static func log(_ event: ChangeEvent, for profile: ProfileName, in connection: SQLiteConnection) throws -> Int64 {
        guard let id = try connection.queryFirst(
            "UPDATE profiles SET last_event_id = last_event_id + 1 WHERE name = ?1 RETURNING last_event_id",
            .text(profile.rawValue), row: { $0.int64(0) })
        else { throw StoreError.internal(reason: "profile \(profile) vanished while logging an event") }
        try connection.run(
            "INSERT INTO events (profile, id, type, data, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            .text(profile.rawValue), .integer(id), .text(event.type.rawValue), .text(event.data), .integer(now()))
        return id
    }
}
