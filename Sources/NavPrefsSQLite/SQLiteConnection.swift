import CSQLite
import NavPrefsStore

/// One SQLite connection and its prepared statements. Owned by exactly one thread (the writer's
/// or a reader's, see ``SQLiteWriter`` and ``SQLiteReaders``), which is why it is not `Sendable`.
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String
    private var statements: [String: SQLiteStatement] = [:]
    /// The store algorithm's statements, by name: cheaper to find than by their SQL text.
    private var storeStatements: [StoreStatement: SQLiteStatement] = [:]
    /// Bytes of text the store's statements may still read (``rows(_:_:)``) before they throw
    /// ``SQLiteError/readTooLargeHere``; `nil`: no bound. Set around a read on the event loop.
    var rowBytesLeft: Int?

    /// Opens the database at `path`, creating it only when `create` (and not `readOnly`).
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/open.html>
    init(path: String, readOnly: Bool, create: Bool = true) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            // Even a failed open may allocate a handle, which must be closed.
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: code, message: message)
        }
        self.handle = handle
        self.path = path
    }

    deinit {
        statements.removeAll()
        storeStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements without parameters (schema, pragmas, transaction control).
    func execute(_ sql: String) throws(SQLiteError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    /// Runs one statement with `bindings`, discarding any rows.
    func run(_ sql: String, _ bindings: StatementValue...) throws(SQLiteError) {
        let statement = try prepared(sql)
        try statement.bind(bindings)
        defer { statement.reset() }
        while try statement.step() {}
    }

    /// Runs one statement with `bindings` and maps each row.
    func query<T>(_ sql: String, _ bindings: StatementValue..., row transform: (SQLiteRow) -> T) throws(SQLiteError) -> [T] {
        let statement = try prepared(sql)
        try statement.bind(bindings)
        defer { statement.reset() }
        var rows: [T] = []
        while try statement.step() { rows.append(transform(SQLiteRow(statement: statement.handle))) }
        return rows
    }

    /// The first row of a query, mapped, or `nil`.
    func queryFirst<T>(_ sql: String, _ bindings: StatementValue..., row transform: (SQLiteRow) -> T) throws(SQLiteError) -> T? {
        let statement = try prepared(sql)
        try statement.bind(bindings)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let first = transform(SQLiteRow(statement: statement.handle))
        while try statement.step() {}  // RETURNING statements finish their work when stepped to the end
        return first
    }

    /// Runs one of the store algorithm's statements and reads its rows into memory.
    func rows(_ statement: StoreStatement, _ bindings: [StatementValue]) throws(SQLiteError) -> [StoreRow] {
        let prepared: SQLiteStatement
        if let cached = storeStatements[statement] {
            prepared = cached
        } else {
            prepared = try SQLiteStatement(sql: SQLiteStatements.sql(statement), connection: self)
            storeStatements[statement] = prepared
        }
        try prepared.bind(bindings)
        defer { prepared.reset() }
        var rows: [StoreRow] = []
        while try prepared.step() {
            let row = SQLiteRow(statement: prepared.handle)
            if let left = rowBytesLeft {
                // Counted before the row's text is copied out: what is over the bound is never read.
                let remaining = left - row.textBytes
                guard remaining >= 0 else { throw .readTooLargeHere }
                rowBytesLeft = remaining
            }
            rows.append(row.cells)
        }
        return rows
    }

    /// How long a statement waits for another connection's lock before it fails with
    /// `SQLITE_BUSY` (0: it never waits).
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// A prepared statement for `sql`, compiled once per connection.
    private func prepared(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try SQLiteStatement(sql: sql, connection: self)
        statements[sql] = statement
        return statement
    }

    /// Returns `code` if it is `expected`; otherwise throws the connection's error.
    @discardableResult
    func check(_ code: Int32, expecting expected: Int32 = SQLITE_OK) throws(SQLiteError) -> Int32 {
        guard code == expected else {
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
        }
        return code
    }
}

@available(*, unavailable)
extension SQLiteConnection: Sendable {}
