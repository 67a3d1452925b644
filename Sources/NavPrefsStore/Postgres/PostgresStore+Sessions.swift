public import NavPrefsCore
import NavPrefsJSON

/// Navigation sessions: one row per session holding its state as JSON, with the columns a list
/// needs (depth, root, top) beside it.
extension PostgresStore {
    public func createSession(_ session: NavigationSession, of profile: ProfileName) async throws(StoreError) -> SessionChange<Void> {
        let limit = options.maxSessionsPerProfile
        let id = SessionID.random()
        return try await write { connection in
            // The claim locks the profile row, so concurrent creates count one after the other.
            guard let claim = try Self.claimEventID(of: profile, creating: true, touchingPreferences: false, in: connection)
            else { throw StoreError.profileNotFound(profile) }
            let count = try connection.queryFirst("SELECT count(*) FROM sessions WHERE profile = $1", .text(profile.rawValue))?.int64(0) ?? 0
            guard count < limit else { throw StoreError.tooManySessions(limit: limit) }
            try connection.query("""
                INSERT INTO sessions (profile, id, state, version, depth, root, top, created_seq, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $4, \(PostgresSchema.nowMilliseconds))
                """, .text(profile.rawValue), .text(id.rawValue), .text(session.json.jsonText), .integer(claim.eventID),
                .integer(Int64(session.stack.count)), .text(session.stack.root.id.rawValue), .text(session.stack.top.id.rawValue))
            let state = SessionState(profile: profile, id: id, session: session, version: Version(claim.eventID))
            let logged = try Self.log(.navigation(profile, session: id, action: "create", details: ["stack": Self.ids(of: session)],
                                                  version: state.version), id: claim.eventID, for: profile, in: connection)
            return Written(SessionChange(state: state, result: (), eventID: claim.eventID), event: logged)
        }
    }

    public func sessions(of profile: ProfileName) async throws(StoreError) -> [SessionSummary] {
        try await read { connection in
            // One statement: the profile's existence and its sessions in one snapshot.
            let rows = try connection.query("""
                SELECT s.id, s.version, s.depth, s.root, s.top
                FROM profiles p LEFT JOIN sessions s ON s.profile = p.name
                WHERE p.name = $1
                ORDER BY s.created_seq
                """, .text(profile.rawValue))
            guard !rows.isEmpty else { throw StoreError.profileNotFound(profile) }
            return try rows.compactMap { row -> SessionSummary? in
                guard let text = row.optionalText(0) else { return nil }  // a profile without sessions
                guard let id = try? SessionID(text), let root = try? ScreenID(try row.text(3)), let top = try? ScreenID(try row.text(4))
                else { throw StoreError.corrupted(reason: "a stored session row of '\(profile)' has invalid ids") }
                return SessionSummary(id: id, version: Version(try row.int64(1)), depth: Int(try row.int64(2)), root: root, top: top)
            }
        }
    }

    public func session(_ id: SessionID, of profile: ProfileName) async throws(StoreError) -> SessionState {
        try await read { connection in
            guard let state = try Self.readSession(id, of: profile, locking: false, in: connection) else {
                throw StoreError.sessionNotFound(id)
            }
            return state
        }
    }

    /// Runs `edit` on the session as stored, inside the write transaction: the row is read with
    /// `SELECT ... FOR UPDATE`, so a concurrent edit of the same session (on any instance) waits
    /// until this transaction ends and then edits the result; none is lost. The profile's event id
    /// is taken only when the edit changed something, after the session row's lock (the same order
    /// as ``deleteSession(_:of:if:)``, so the two never deadlock).
    public func updateSession<Result: Sendable>(
        _ id: SessionID, of profile: ProfileName, if precondition: WritePrecondition?,
        _ edit: @escaping @Sendable (inout NavigationSession) throws(NavigationError) -> SessionEdit<Result>
    ) async throws(StoreError) -> SessionChange<Result> {
        try await write { connection in
            let (before, session, outcome) = try StoreRules.edit(try Self.readSession(id, of: profile, locking: true, in: connection), id: id, if: precondition, edit)
            guard let event = outcome.event else {
                return Written(SessionChange(state: before, result: outcome.result, eventID: nil), event: nil)
            }
            guard let claim = try Self.claimEventID(of: profile, creating: false, touchingPreferences: false, in: connection)
            else { throw StoreError.profileNotFound(profile) }
            try connection.query("""
                UPDATE sessions SET state = $3, version = $4, depth = $5, root = $6, top = $7 WHERE profile = $1 AND id = $2
                """, .text(profile.rawValue), .text(id.rawValue), .text(session.json.jsonText), .integer(claim.eventID),
                .integer(Int64(session.stack.count)), .text(session.stack.root.id.rawValue), .text(session.stack.top.id.rawValue))
            let state = SessionState(profile: profile, id: id, session: session, version: Version(claim.eventID))
            let logged = try Self.log(.navigation(profile, session: id, action: event.action, details: event.details, version: state.version),
                                      id: claim.eventID, for: profile, in: connection)
            return Written(SessionChange(state: state, result: outcome.result, eventID: claim.eventID), event: logged)
        }
    }

    public func deleteSession(_ id: SessionID, of profile: ProfileName, if precondition: WritePrecondition?) async throws(StoreError) -> Int64 {
        try await write { connection in
            guard let row = try connection.queryFirst("SELECT version FROM sessions WHERE profile = $1 AND id = $2 FOR UPDATE",
                                                      .text(profile.rawValue), .text(id.rawValue))
            else {
                if precondition != nil { throw StoreError.preconditionFailed(current: nil) }
                throw StoreError.sessionNotFound(id)
            }
            let version = Version(try row.int64(0))
            if let precondition, !precondition.admits(version) { throw StoreError.preconditionFailed(current: version) }
            guard let claim = try Self.claimEventID(of: profile, creating: false, touchingPreferences: false, in: connection)
            else { throw StoreError.profileNotFound(profile) }
            try connection.query("DELETE FROM sessions WHERE profile = $1 AND id = $2", .text(profile.rawValue), .text(id.rawValue))
            let logged = try Self.log(.navigation(profile, session: id, action: "delete", version: Version(claim.eventID)),
                                      id: claim.eventID, for: profile, in: connection)
            return Written(claim.eventID, event: logged)
        }
    }

    /// One session as stored; with `locking`, its row stays locked until the transaction ends.
    static func readSession(_ id: SessionID, of profile: ProfileName, locking: Bool, in connection: PostgresConnection) throws -> SessionState? {
        guard let row = try connection.queryFirst(
            "SELECT state, version FROM sessions WHERE profile = $1 AND id = $2" + (locking ? " FOR UPDATE" : ""),
            .text(profile.rawValue), .text(id.rawValue))
        else { return nil }
        let session: NavigationSession
        do {
            session = try NavigationSession(json: parse(try row.text(0)))
        } catch let error as NavigationDecodingError {
            throw StoreError.corrupted(reason: "session '\(id)' of '\(profile)' does not decode: \(error)")
        }
        return SessionState(profile: profile, id: id, session: session, version: Version(try row.int64(1)))
    }

    static func ids(of session: NavigationSession) -> JSONValue {
        .array(session.stack.ids.map { .string($0.rawValue) })
    }
}
