import CSQLite

/// A value bound to a statement parameter.
enum SQLiteValue {
    case integer(Int64)
    case real(Double)
    case text(String)
    case null
}

/// A prepared statement, finalized when released.
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/stmt.html>
final class SQLiteStatement {
    let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(sql: String, connection: SQLiteConnection) throws(SQLiteError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        try connection.check(code)
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "empty statement: \(sql)") }
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32 = switch value {
            case .integer(let number): sqlite3_bind_int64(handle, index, number)
            case .real(let number): sqlite3_bind_double(handle, index, number)
            case .text(let text): sqlite3_bind_text(handle, index, text, -1, csqlite_transient())
            case .null: sqlite3_bind_null(handle, index)
            }
            try connection.check(code)
        }
    }

    /// Advances to the next row; `false` when the statement is done.
    func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        try connection.check(code, expecting: SQLITE_DONE)
        return false
    }

    /// Makes the statement ready to run again and drops its bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}

/// The current row of a stepping statement; valid only inside the row closure.
struct SQLiteRow {
    let statement: OpaquePointer

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
}
