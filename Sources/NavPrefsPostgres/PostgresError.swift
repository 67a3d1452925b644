import NavPrefsStore

/// A failed libpq call: what failed, the server's SQLSTATE if it answered, and libpq's message.
/// Related PostgreSQL documentation: <https://www.postgresql.org/docs/current/errcodes-appendix.html>
struct PostgresError: Error, CustomStringConvertible {
    enum Kind: Equatable {
        /// No connection, or it was lost: the server may or may not have run the statement.
        case connection
        /// The server refused the statement.
        case server(sqlState: String?)
        /// A value read back is not what the store writes (a damaged or foreign table).
        case data
    }

    let kind: Kind
    let message: String
    /// Set when the failure happened before anything of the job reached the server (the `BEGIN`
    /// of a transaction), so the job can run again on a new connection without doing it twice.
    var safeToRetry = false

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    var description: String {
        switch kind {
        case .connection: "PostgreSQL connection: \(message)"
        case .server(let state): "PostgreSQL error \(state ?? "-"): \(message)"
        case .data: "PostgreSQL data: \(message)"
        }
    }

    var sqlState: String? {
        if case .server(let state) = kind { state } else { nil }
    }

    /// The connection is unusable and must be replaced.
    var isConnectionLost: Bool {
        switch kind {
        case .connection: true
        case .server(let state?):
            // 08: connection exception; 57P01..57P03: the server is shutting down or starting.
            state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
        case .server(nil), .data: false
        }
    }

    /// A conflict between transactions that running the transaction again resolves: a
    /// serialization failure or a deadlock (neither is expected with the store's lock order).
    var isTransient: Bool { ["40001", "40P01"].contains(sqlState ?? "") }

    /// What the rest of the service sees: stores never leak SQLSTATEs past this module.
    var storeError: StoreError {
        if isConnectionLost { return .unavailable(reason: "PostgreSQL is unreachable (\(message))") }
        switch kind {
        case .server(let state?) where isTransient || state.hasPrefix("53") || state == "57014" || state == "55P03"
            || state == "25006":
            // Conflicts, insufficient resources (too many connections, disk full), cancelled or
            // timed-out statements, a read-only standby: retrying later may work.
            return .unavailable(reason: "PostgreSQL cannot serve now (\(state): \(message))")
        case .server(let state?) where state == "XX001" || state == "XX002":
            return .corrupted(reason: message)
        case .data:
            return .corrupted(reason: message)
        default:
            return .internal(reason: description)
        }
    }
}
