public import NavPrefsCore

/// Navigation sessions (semantics S-1..S-14): one row per session holding its state as JSON,
/// with the columns a list needs (depth, root, top) beside it. Every change runs inside the write
/// transaction on the session as stored, its row locked, so two devices driving one session
/// never overwrite each other. The profile's event id is taken only when an edit changed
/// something, after the session row's lock (the same order for every session write, so two never
/// deadlock); sessions leave the version of the profile's preferences alone.
extension StoreWrite where Value == SessionChange<Void> {
    /// ``Store/createSession(_:of:)`` as a value, with the `label` a client gave the session. The
    /// session's id is drawn here, once: a write run again under its idempotency key answers the
    /// same session.
    public static func createSession(_ session: NavigationSession, label: String? = nil, of profile: ProfileName) -> StoreWrite {
        let id = SessionID.random()
        return StoreWrite(of: profile) { transaction, limits in
            let limit = limits.maxSessionsPerProfile
            // The claim locks the profile, so concurrent creates count one after the other.
            guard let claim = try transaction.claimEventID(of: profile, creating: true, touchingPreferences: false) else {
                throw StoreError.profileNotFound(profile)
            }
            let count = try transaction.firstRow(.countSessions, .text(profile.rawValue))?.int64(0) ?? 0
            guard count < limit else { throw StoreError.tooManySessions(limit: limit) }
            let times = try transaction.firstRow(
                .insertSession, .text(profile.rawValue), .text(id.rawValue), .text(session.json.jsonText), .integer(claim.eventID),
                .integer(Int64(session.stack.count)), .text(session.stack.root.id.rawValue), .text(session.stack.top.id.rawValue),
                label.map(StatementValue.text) ?? .null)
            let state = SessionState(profile: profile, id: id, session: session, version: Version(claim.eventID), label: label,
                                     createdAt: try times?.int64(0) ?? 0, updatedAt: try times?.int64(1) ?? 0)
            var details: JSONObject = ["stack": SessionSteps.ids(of: session)]
            if let label { details["label"] = .string(label) }  // so that mirrors list it as its client named it
            let logged = try TransactionSteps.log(.navigation(profile, session: id, action: "create", details: details, version: state.version),
                                       id: claim.eventID, for: profile, in: transaction)
            return WriteOutcome(SessionChange(state: state, result: (), eventID: claim.eventID), events: [logged],
                                counterView: .profileExists(profile))
        }
    }
}

extension StoreWrite {
    /// ``Store/updateSession(_:of:if:_:)`` as a value.
    public static func updateSession<Result: Sendable>(
        _ id: SessionID, of profile: ProfileName, if precondition: WritePrecondition?,
        _ edit: @escaping @Sendable (inout NavigationSession) throws(NavigationError) -> SessionEdit<Result>
    ) -> StoreWrite where Value == SessionChange<Result> {
        StoreWrite(of: profile) { transaction, _ in
            guard let before = try SessionSteps.readSession(id, of: profile, locking: true, in: transaction) else {
                // A condition on a session that does not exist fails as a condition (RFC 9110 §13.1.1).
                throw precondition != nil ? StoreError.preconditionFailed(current: nil) : StoreError.sessionNotFound(id)
            }
            try TransactionSteps.check(precondition, against: before.version)
            var session = before.session
            let outcome: SessionEdit<Result>
            do throws(NavigationError) {
                outcome = try edit(&session)
            } catch {
                throw StoreError.navigation(error)
            }
            guard let event = outcome.event else {
                return WriteOutcome(SessionChange(state: before, result: outcome.result, eventID: nil))
            }
            guard let claim = try transaction.claimEventID(of: profile, creating: false, touchingPreferences: false) else {
                throw StoreError.profileNotFound(profile)
            }
            let row = try transaction.firstRow(.updateSession, .text(profile.rawValue), .text(id.rawValue), .text(session.json.jsonText),
                                               .integer(claim.eventID), .integer(Int64(session.stack.count)),
                                               .text(session.stack.root.id.rawValue), .text(session.stack.top.id.rawValue))
            let state = SessionState(profile: profile, id: id, session: session, version: Version(claim.eventID),
                                     label: row?.optionalText(0), createdAt: try row?.int64(1) ?? before.createdAt,
                                     updatedAt: try row?.int64(2) ?? before.updatedAt)
            let logged = try TransactionSteps.log(.navigation(profile, session: id, action: event.action, details: event.details, version: state.version),
                                       id: claim.eventID, for: profile, in: transaction)
            return WriteOutcome(SessionChange(state: state, result: outcome.result, eventID: claim.eventID), events: [logged])
        }
    }
}

extension StoreWrite where Value == Int64 {
    /// ``Store/deleteSession(_:of:if:)`` as a value.
    public static func deleteSession(_ id: SessionID, of profile: ProfileName, if precondition: WritePrecondition?) -> StoreWrite {
        StoreWrite(of: profile, growsStorage: false) { transaction, _ in
            guard let row = try transaction.firstRow(.sessionVersionForUpdate, .text(profile.rawValue), .text(id.rawValue)) else {
                throw precondition != nil ? StoreError.preconditionFailed(current: nil) : StoreError.sessionNotFound(id)
            }
            try TransactionSteps.check(precondition, against: Version(try row.int64(0)))
            guard let claim = try transaction.claimEventID(of: profile, creating: false, touchingPreferences: false) else {
                throw StoreError.profileNotFound(profile)
            }
            try transaction.run(.deleteSession, .text(profile.rawValue), .text(id.rawValue))
            let logged = try TransactionSteps.log(.navigation(profile, session: id, action: "delete", version: Version(claim.eventID)),
                                       id: claim.eventID, for: profile, in: transaction)
            return WriteOutcome(claim.eventID, events: [logged])
        }
    }
}

/// The steps the session reads and writes share.
enum SessionSteps {
    /// One session as stored; with `locking`, its row stays locked until the transaction ends.
    static func readSession(_ id: SessionID, of profile: ProfileName, locking: Bool, in transaction: any StoreTransaction) throws
        -> SessionState? {
        guard let row = try transaction.firstRow(locking ? .readSessionForUpdate : .readSession, .text(profile.rawValue), .text(id.rawValue))
        else { return nil }
        let session: NavigationSession
        do {
            session = try NavigationSession(json: TransactionSteps.parse(try row.text(0)))
        } catch let error as NavigationDecodingError {
            throw StoreError.corrupted(reason: "session '\(id)' of '\(profile)' does not decode: \(error)")
        }
        return SessionState(profile: profile, id: id, session: session, version: Version(try row.int64(1)), label: row.optionalText(2),
                            createdAt: try row.int64(3), updatedAt: try row.int64(4))
    }

    /// The sessions of `profile`, oldest first (none for a profile nobody wrote to).
    static func summaries(of profile: ProfileName, in transaction: any StoreTransaction) throws -> [SessionSummary] {
        // A profile nobody wrote to has no sessions, like one whose sessions were all deleted.
        try transaction.rows(.listSessions, .text(profile.rawValue)).compactMap { row -> SessionSummary? in
            guard let text = row.optionalText(0) else { return nil }  // a profile without sessions
            guard let id = try? SessionID(text), let root = try? ScreenID(try row.text(3)), let top = try? ScreenID(try row.text(4))
            else { throw StoreError.corrupted(reason: "a stored session row of '\(profile)' has invalid ids") }
            return SessionSummary(id: id, version: Version(try row.int64(1)), depth: Int(try row.int64(2)), root: root, top: top,
                                  label: row.optionalText(5), createdAt: try row.int64(6), updatedAt: try row.int64(7))
        }
    }

    static func ids(of session: NavigationSession) -> JSONValue {
        .array(session.stack.ids.map { .string($0.rawValue) })
    }
}

extension StoreRead where Value == [SessionSummary] {
    /// ``Store/sessions(of:)`` as a value.
    public static func sessions(of profile: ProfileName) -> StoreRead {
        StoreRead(snapshot: false) { transaction in try SessionSteps.summaries(of: profile, in: transaction) }
    }
}

extension StoreRead where Value == SessionState {
    /// ``Store/session(_:of:)`` as a value.
    public static func session(_ id: SessionID, of profile: ProfileName) -> StoreRead {
        StoreRead(snapshot: false) { transaction in
            guard let state = try SessionSteps.readSession(id, of: profile, locking: false, in: transaction) else {
                throw StoreError.sessionNotFound(id)
            }
            return state
        }
    }
}
