public import NavPrefsCore
import NavPrefsJSON

/// Navigation sessions: one row per session holding its state as JSON, with the columns a list
/// needs (depth, root, top) beside it. Every change runs inside the writer's transaction on the
/// state as stored, so two devices driving one session never overwrite each other.
extension SQLiteStore {
    public func createSession(_ session: NavigationSession, of profile: ProfileName) async throws(StoreError) -> SessionChange<Void> {
        let limit = options.maxSessionsPerProfile
        let id = SessionID.random()
        let cache = counters
        return try await writer.write { context in
            let connection = context.connection
            try Self.createProfileIfNeeded(profile, in: context)
            let count = try connection.queryFirst("SELECT count(*) FROM sessions WHERE profile = ?1",
                                                  .text(profile.rawValue)) { $0.int64(0) } ?? 0
            guard count < limit else { throw StoreError.tooManySessions(limit: limit) }
            guard let eventID = try Self.nextSessionEventID(of: profile, in: connection) else { throw StoreError.profileNotFound(profile) }
            try connection.run("""
                INSERT INTO sessions (profile, id, state, version, depth, root, top, created_seq, created_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?4, ?8)
                """, .text(profile.rawValue), .text(id.rawValue), .text(session.json.jsonText), .integer(eventID),
                .integer(Int64(session.stack.count)), .text(session.stack.root.id.rawValue), .text(session.stack.top.id.rawValue),
                .integer(Self.now()))
            let state = SessionState(profile: profile, id: id, session: session, version: Version(eventID))
            let logged = try Self.log(.navigation(profile, session: id, action: "create", details: ["stack": Self.ids(of: session)],
                                                  version: state.version), id: eventID, for: profile, in: connection)
            return Committed(value: SessionChange(state: state, result: (), eventID: eventID), events: [logged]) { context in
                context.knownProfiles.insert(profile.rawValue)
                cache.profileExists(profile)
            }
        }
    }

    public func sessions(of profile: ProfileName) async throws(StoreError) -> [SessionSummary] {
        try await readers.read { connection in
            try connection.transaction {
                guard try connection.queryFirst("SELECT 1 FROM profiles WHERE name = ?1", .text(profile.rawValue), row: { _ in true }) != nil
                else { throw StoreError.profileNotFound(profile) }
                let rows = try connection.query(
                    "SELECT id, version, depth, root, top FROM sessions WHERE profile = ?1 ORDER BY created_seq",
                    .text(profile.rawValue)) { ($0.text(0), $0.int64(1), $0.int64(2), $0.text(3), $0.text(4)) }
                return try rows.map { row in
                    guard let id = try? SessionID(row.0), let root = try? ScreenID(row.3), let top = try? ScreenID(row.4) else {
                        throw StoreError.corrupted(reason: "a stored session row of '\(profile)' has invalid ids")
                    }
                    return SessionSummary(id: id, version: Version(row.1), depth: Int(row.2), root: root, top: top)
                }
            }
        }
    }

    public func session(_ id: SessionID, of profile: ProfileName) async throws(StoreError) -> SessionState {
        try await readers.read { connection in
            guard let state = try Self.readSession(id, of: profile, in: connection) else { throw StoreError.sessionNotFound(id) }
            return state
        }
    }

    public func updateSession<Result: Sendable>(
        _ id: SessionID, of profile: ProfileName, if precondition: WritePrecondition?,
        _ edit: @escaping @Sendable (inout NavigationSession) throws(NavigationError) -> SessionEdit<Result>
    ) async throws(StoreError) -> SessionChange<Result> {
        try await writer.write { context in
            let connection = context.connection
            let (before, session, outcome) = try StoreRules.edit(try Self.readSession(id, of: profile, in: connection), id: id, if: precondition, edit)
            guard let event = outcome.event else {
                return Committed(value: SessionChange(state: before, result: outcome.result, eventID: nil))
            }
            guard let eventID = try Self.nextSessionEventID(of: profile, in: connection) else { throw StoreError.profileNotFound(profile) }
            try connection.run("""
                UPDATE sessions SET state = ?3, version = ?4, depth = ?5, root = ?6, top = ?7 WHERE profile = ?1 AND id = ?2
                """, .text(profile.rawValue), .text(id.rawValue), .text(session.json.jsonText), .integer(eventID),
                .integer(Int64(session.stack.count)), .text(session.stack.root.id.rawValue), .text(session.stack.top.id.rawValue))
            let state = SessionState(profile: profile, id: id, session: session, version: Version(eventID))
            let logged = try Self.log(.navigation(profile, session: id, action: event.action, details: event.details, version: state.version),
                                      id: eventID, for: profile, in: connection)
            return Committed(value: SessionChange(state: state, result: outcome.result, eventID: eventID), events: [logged])
        }
    }

    public func deleteSession(_ id: SessionID, of profile: ProfileName, if precondition: WritePrecondition?) async throws(StoreError) -> Int64 {
        try await writer.write { context in
            let connection = context.connection
            guard let version = try connection.queryFirst("SELECT version FROM sessions WHERE profile = ?1 AND id = ?2",
                                                          .text(profile.rawValue), .text(id.rawValue), row: { Version($0.int64(0)) })
            else {
                if precondition != nil { throw StoreError.preconditionFailed(current: nil) }
                throw StoreError.sessionNotFound(id)
            }
            if let precondition, !precondition.admits(version) { throw StoreError.preconditionFailed(current: version) }
            guard let eventID = try Self.nextSessionEventID(of: profile, in: connection) else { throw StoreError.profileNotFound(profile) }
            try connection.run("DELETE FROM sessions WHERE profile = ?1 AND id = ?2", .text(profile.rawValue), .text(id.rawValue))
            let logged = try Self.log(.navigation(profile, session: id, action: "delete", version: Version(eventID)),
                                      id: eventID, for: profile, in: connection)
            return Committed(value: eventID, events: [logged])
        }
    }

    /// Takes the profile's next event id for a session change. Unlike ``nextEventID(of:in:)``
    /// it leaves the version of the profile's preferences alone: sessions are not preferences.
    static func nextSessionEventID(of profile: ProfileName, in connection: SQLiteConnection) throws -> Int64? {
        try connection.queryFirst("UPDATE profiles SET last_event_id = last_event_id + 1 WHERE name = ?1 RETURNING last_event_id",
                                  .text(profile.rawValue)) { $0.int64(0) }
    }

    static func readSession(_ id: SessionID, of profile: ProfileName, in connection: SQLiteConnection) throws -> SessionState? {
        guard let row = try connection.queryFirst("SELECT state, version FROM sessions WHERE profile = ?1 AND id = ?2",
                                                  .text(profile.rawValue), .text(id.rawValue), row: { ($0.text(0), $0.int64(1)) })
        else { return nil }
        let session: NavigationSession
        do {
            session = try NavigationSession(json: parse(row.0))
        } catch let error as NavigationDecodingError {
            throw StoreError.corrupted(reason: "session '\(id)' of '\(profile)' does not decode: \(error)")
        }
        return SessionState(profile: profile, id: id, session: session, version: Version(row.1))
    }

    static func ids(of session: NavigationSession) -> JSONValue {
        .array(session.stack.ids.map { .string($0.rawValue) })
    }
}
