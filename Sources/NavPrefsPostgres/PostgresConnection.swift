import CPostgres
import Foundation
import NavPrefsStore

/// One libpq connection. Owned by exactly one thread (a pool worker or the listener), which is
/// why it is not `Sendable`; every libpq call of the store goes through this type.
///
/// Statements are prepared once per connection (`PQprepare`) and run with `PQexecPrepared` in
/// text format: values travel as parameters, never inside SQL text. Every libpq call blocks
/// until the server answers, so this type is used only on the store's own threads, never on
/// Swift's cooperative pool.
/// Related libpq documentation: <https://www.postgresql.org/docs/current/libpq-exec.html>
final class PostgresConnection {
    private let handle: OpaquePointer
    /// The name each statement text was prepared under on this connection. The store's
    /// statements are a fixed set of texts, so each is parsed and planned by PostgreSQL once per
    /// connection instead of at every call (``maxPrepared`` bounds texts made at run time).
    private var prepared: [String: String] = [:]
    static let maxPrepared = 256
    /// Commands without parameters or rows (`BEGIN`, `SAVEPOINT`, `RELEASE`...) held back to
    /// travel with the next statement, in one round trip (see ``pipeline(_:)``).
    private var heldBack: [String] = []

    /// Connects to `url` (a `postgres://` or `postgresql://` URL, or any libpq connection string).
    ///
    /// The defaults below come before the URL, so a parameter the URL sets wins (libpq uses the
    /// last value of a repeated keyword). They bound how long a call can hang on a server that
    /// vanished without closing the socket (a machine that died, a network partition): 5 s to
    /// connect; data sent and not acknowledged for 3 s (`tcp_user_timeout`) ends the connection;
    /// and an answer awaited on a silent socket ends it after about 3 s too, since keepalive
    /// probes start after 2 s of silence and the user timeout then cuts them short. Why so short:
    /// a failover manager promotes the standby within seconds, and a call stuck on the old primary
    /// holds a pool thread (and its caller) until the socket gives up; no store call is silent
    /// that long while the server lives (the probes are answered by the peer's kernel).
    ///
    /// `url` may name several hosts (`host=a,b` or `postgresql://a:5432,b:5432/db`) with
    /// `target_session_attrs=read-write`: libpq then tries them in turn and keeps the one that
    /// takes writes, so after a failover each new connection finds the new primary by itself.
    /// Related libpq documentation: <https://www.postgresql.org/docs/current/libpq-connect.html>
    ///
    /// With `readOnly`, every transaction of the connection is read-only (the server refuses
    /// writes), for commands that must not change the database. `sessionAttributes` replaces
    /// the URL's `target_session_attrs` (`prefer-standby` for reads while the primary is away).
    ///
    /// With `abandonment`, the connect is given up as soon as it is abandoned (see
    /// ``ConnectAbandonment``), whatever the connect timeout.
    init(url: String, applicationName: String = "navprefs", connectTimeoutSeconds: Int = 5, readOnly: Bool = false,
         sessionAttributes: String? = nil, abandonment: ConnectAbandonment? = nil) throws(PostgresError) {
        var parameters: [(String, String)] = [
            ("connect_timeout", String(connectTimeoutSeconds)),
            ("application_name", applicationName),
            ("keepalives", "1"),
            ("keepalives_idle", "2"),
            ("keepalives_interval", "1"),
            ("keepalives_count", "3"),
            ("tcp_user_timeout", "3000"),
        ]
        if readOnly { parameters.append(("options", "-c default_transaction_read_only=on")) }
        parameters.append(("dbname", url))  // expanded (expand_dbname = 1): the URL's own parameters come last and win
        // After the URL, so it wins over the URL's own.
        if let sessionAttributes { parameters.append(("target_session_attrs", sessionAttributes)) }
        let keywords = parameters.map(\.0), values = parameters.map(\.1)
        let connect: @Sendable () -> OpaquePointer? = {
            Self.withCStrings(keywords) { keywords in
                Self.withCStrings(values) { values in PQconnectdbParams(keywords, values, 1) }
            }
        }
        let connection: OpaquePointer?
        if let abandonment {
            connection = try AbandonableConnect.run(connect, abandonment: abandonment)
        } else {
            connection = connect()
        }
        guard let connection else { throw PostgresError(.connection, "libpq could not allocate a connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(PQerrorMessage(connection)) ?? "cannot connect"
            PQfinish(connection)
            throw PostgresError(.connection, message)
        }
        cpq_silence_notices(connection)
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// Whether the connection is still usable (libpq noticed no loss).
    var isAlive: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Runs one or more statements without parameters (schema, transaction control), after
    /// any held-back commands.
    func execute(_ sql: String) throws(PostgresError) {
        guard heldBack.isEmpty else {
            _ = try pipeline([.command(sql)])
            return
        }
        _ = try check(PQexec(handle, sql))
    }

    /// Holds back `command` (one statement, no parameters, no rows) until the next statement,
    /// which carries it in the same round trip. Its error, if any, is that statement's.
    func holdBack(_ command: String) {
        heldBack.append(command)
    }

    /// Forgets held-back commands (the connection is being given up).
    func dropHeldBack() {
        heldBack.removeAll()
    }

    /// Runs one statement with `parameters` ($1, $2, ...) and returns its rows.
    @discardableResult
    func query(_ sql: String, _ parameters: StatementValue...) throws(PostgresError) -> [StoreRow] {
        try query(sql, parameters: parameters)
    }

    @discardableResult
    func query(_ sql: String, parameters: [StatementValue]) throws(PostgresError) -> [StoreRow] {
        if !heldBack.isEmpty { return try pipeline([.statement(sql, parameters)]).last ?? [] }
        let name = try preparedName(of: sql, parameterCount: parameters.count)
        let result = try withParameters(parameters) { values in
            if let name { return PQexecPrepared(handle, name, Int32(values.count), values.baseAddress, nil, nil, 0) }
            return PQexecParams(handle, sql, Int32(values.count), nil, values.baseAddress, nil, nil, 0)
        }
        return try check(result)
    }

    /// The name `sql` is prepared under, preparing it on first use; `nil` once ``maxPrepared``
    /// texts are (then it runs unprepared). Parameter types are inferred as `PQexecParams` does.
    /// A prepared statement outlives a failed transaction: preparing is not transactional.
    private func preparedName(of sql: String, parameterCount: Int) throws(PostgresError) -> String? {
        if let name = prepared[sql] { return name }
        guard prepared.count < Self.maxPrepared else { return nil }
        let name = "navprefs_\(prepared.count)"
        _ = try check(PQprepare(handle, name, sql, Int32(parameterCount), nil))
        prepared[sql] = name
        return name
    }

    /// The first row of a query, or `nil`.
    func queryFirst(_ sql: String, _ parameters: StatementValue...) throws(PostgresError) -> StoreRow? {
        try query(sql, parameters: parameters).first
    }

    // MARK: Pipelines

    enum PipelineItem {
        /// A statement with parameters, prepared on this connection.
        case statement(String, [StatementValue])
        /// A command without parameters or rows.
        case command(String)
    }

    /// Sends the held-back commands and `items` in one round trip (libpq's pipeline mode) and
    /// answers the rows of each of `items`, in order. The first error is thrown once every
    /// result is read: the server skips what follows a failed statement, and a transaction it
    /// was in is then aborted, as it would be had they been sent one by one.
    /// Related libpq documentation: <https://www.postgresql.org/docs/current/libpq-pipeline-mode.html>
    func pipeline(_ items: [PipelineItem]) throws(PostgresError) -> [[StoreRow]] {
        let sent: [PipelineItem] = heldBack.map(PipelineItem.command) + items
        heldBack.removeAll()
        guard PQenterPipelineMode(handle) == 1 else {
            throw PostgresError(isAlive ? .server(sqlState: nil) : .connection, Self.message(PQerrorMessage(handle)) ?? "cannot pipeline")
        }
        defer { _ = PQexitPipelineMode(handle) }
        // What each result read back belongs to: a preparation, or the item at an index.
        var expected: [(item: Int?, prepared: String?)] = []
        var failure: PostgresError?
        for (index, item) in sent.enumerated() {
            switch item {
            case .command(let sql):
                guard PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0) == 1 else { failure = sendFailure(); break }
                expected.append((index, nil))
            case .statement(let sql, let parameters):
                var name = prepared[sql]
                if name == nil, prepared.count < Self.maxPrepared {
                    let fresh = "navprefs_\(prepared.count)"
                    guard PQsendPrepare(handle, fresh, sql, Int32(parameters.count), nil) == 1 else { failure = sendFailure(); break }
                    // Counted as prepared now, forgotten below if the server refuses it.
                    prepared[sql] = fresh
                    expected.append((nil, sql))
                    name = fresh
                }
                let sentOK = try withParameters(parameters) { values in
                    if let name {
                        return PQsendQueryPrepared(handle, name, Int32(values.count), values.baseAddress, nil, nil, 0)
                    }
                    return PQsendQueryParams(handle, sql, Int32(values.count), nil, values.baseAddress, nil, nil, 0)
                }
                guard sentOK == 1 else { failure = sendFailure(); break }
                expected.append((index, nil))
            }
            if failure != nil { break }
        }
        if let failure {
            // Nothing can be read back reliably from a half-sent pipeline: give the connection up.
            throw PostgresError(.connection, failure.message)
        }
        guard PQpipelineSync(handle) == 1 else { throw sendFailure() }
        var rows = [[StoreRow]](repeating: [], count: sent.count)
        var firstError: PostgresError?
        for (item, preparation) in expected {
            guard let result = PQgetResult(handle) else {
                throw PostgresError(.connection, Self.message(PQerrorMessage(handle)) ?? "the pipeline ended early")
            }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_ABORTED {
                PQclear(result)
                if let preparation { prepared[preparation] = nil }
            } else {
                do {
                    let read = try check(result)
                    if let item { rows[item] = read }
                } catch {
                    if let preparation { prepared[preparation] = nil }
                    if firstError == nil { firstError = error }
                }
            }
            // Each command's results end with a null result.
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        // The synchronisation point ends the pipeline.
        guard let sync = PQgetResult(handle) else {
            throw PostgresError(.connection, Self.message(PQerrorMessage(handle)) ?? "the pipeline ended early")
        }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        if let firstError { throw firstError }
        guard synced else { throw PostgresError(.connection, "the pipeline did not end where it should") }
        let offset = sent.count - items.count
        return Array(rows[offset...])
    }

    private func sendFailure() -> PostgresError {
        PostgresError(.connection, Self.message(PQerrorMessage(handle)) ?? "cannot send")
    }

    /// Calls `body` with the parameters as C strings (`NULL` for SQL null), which libpq reads
    /// during the call only; they are copied, then freed after it.
    private func withParameters<R>(_ parameters: [StatementValue], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R)
        throws(PostgresError) -> R {
        var copies: [UnsafeMutablePointer<CChar>?] = []
        copies.reserveCapacity(parameters.count)
        defer { for copy in copies { free(copy) } }
        for parameter in parameters {
            guard let text = parameter.text else {
                copies.append(nil)
                continue
            }
            guard let copy = strdup(text) else { throw PostgresError(.connection, "out of memory while binding parameters") }
            copies.append(copy)
        }
        let values: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        return values.withUnsafeBufferPointer(body)
    }

    // MARK: Notifications (LISTEN)

    /// The socket libpq reads from, for `poll`.
    var socket: Int32 { PQsocket(handle) }

    /// Reads whatever the server sent, so that ``notifications()`` can hand it out; throws when the
    /// connection is gone. Related: <https://www.postgresql.org/docs/current/libpq-notify.html>
    func consumeInput() throws(PostgresError) {
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(.connection, Self.message(PQerrorMessage(handle)) ?? "connection lost")
        }
    }

    /// Notifications received so far (also those that arrived during a query), in arrival order.
    func notifications() -> [(channel: String, payload: String)] {
        var received: [(channel: String, payload: String)] = []
        while let notify = PQnotifies(handle) {
            received.append((String(cString: notify.pointee.relname), String(cString: notify.pointee.extra)))
            PQfreemem(notify)
        }
        return received
    }

    /// Waits until the server sent something or `wake` became readable, at most `timeout`
    /// milliseconds. Answers which of the two is readable (both `false` on timeout).
    func waitForInput(orWake wake: Int32, timeoutMilliseconds: Int32) -> (input: Bool, wake: Bool) {
        var descriptors = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let ready = descriptors.withUnsafeMutableBufferPointer { poll($0.baseAddress, 2, timeoutMilliseconds) }
        guard ready > 0 else { return (false, false) }
        // An error or hang-up on the socket counts as input: consuming it reports the loss.
        return (descriptors[0].revents != 0, descriptors[1].revents & Int16(POLLIN) != 0)
    }

    // MARK: Results

    /// Turns a result into rows, or throws its error (and frees it either way).
    private func check(_ result: OpaquePointer?) throws(PostgresError) -> [StoreRow] {
        guard let result else {
            // No result at all: out of memory, or the connection is gone.
            throw PostgresError(isAlive ? .server(sqlState: nil) : .connection,
                                Self.message(PQerrorMessage(handle)) ?? "no result")
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        switch status {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return []
        case PGRES_TUPLES_OK:
            let rowCount = PQntuples(result), columnCount = PQnfields(result)
            var rows: [StoreRow] = []
            rows.reserveCapacity(Int(rowCount))
            for row in 0..<rowCount {
                var cells: [StoreRow.Cell] = []
                cells.reserveCapacity(Int(columnCount))
                for column in 0..<columnCount {
                    if PQgetisnull(result, row, column) == 1 {
                        cells.append(.null)
                    } else {
                        cells.append(.text(String(cString: PQgetvalue(result, row, column))))
                    }
                }
                rows.append(StoreRow(cells))
            }
            return rows
        default:
            let sqlState = PQresultErrorField(result, cpq_diag_sqlstate()).map { String(cString: $0) }
            let message = Self.message(PQresultErrorMessage(result)) ?? "statement failed"
            // A server that went away mid-statement leaves a result with an error, no SQLSTATE
            // and a dead connection.
            throw PostgresError(!isAlive && sqlState == nil ? .connection : .server(sqlState: sqlState), message)
        }
    }

    private static func message(_ text: UnsafePointer<CChar>?) -> String? {
        guard let text else { return nil }
        let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? nil : message
    }

    /// Calls `body` with a NULL-terminated array of C strings that live for the call; `nil` when
    /// memory runs out.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R?) -> R? {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        guard !copies.contains(where: { $0 == nil }) else { return nil }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeBufferPointer { buffer in buffer.baseAddress.flatMap(body) }
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}

extension StatementValue {
    /// The parameter as PostgreSQL reads it in text format (it casts it to the column's or
    /// `$n::type`'s type): lists as array literals, `{3,4}` or `{"a","b"}`.
    var text: String? {
        switch self {
        case .text(let value): value
        case .integer(let value): String(value)
        case .bool(let value): value ? "t" : "f"
        case .null: nil
        case .integers(let values): "{" + values.map(String.init).joined(separator: ",") + "}"
        case .texts(let values): "{" + values.map(Self.arrayElement).joined(separator: ",") + "}"
        }
    }

    /// One element of an array literal: quoted, with `"` and `\` escaped by a backslash.
    private static func arrayElement(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
