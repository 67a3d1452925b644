import CSQLite

/// One of navprefs' statements as prepared, whose SQL may hold several statements (as navprefs'
/// `SQLiteStatement` runs them): those before the last run to their end on the first `step()`
/// after a `reset()`, and the rows are the last one's. A value is bound to every statement that
/// has a parameter of its number (the others refuse it, which is ignored: they do not use it).
final class Script {
    private let statements: [OpaquePointer]
    private var leadingRan = false

    init?(_ connection: OpaquePointer, _ sql: String) {
        var prepared: [OpaquePointer] = []
        let ok = sql.withCString { text in
            var next: UnsafePointer<CChar>? = text
            while let start = next, start.pointee != 0 {
                var statement: OpaquePointer?
                guard sqlite3_prepare_v3(connection, start, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &next) == SQLITE_OK
                else { return false }
                if let statement { prepared.append(statement) }
            }
            return true
        }
        guard ok, !prepared.isEmpty else {
            prepared.forEach { sqlite3_finalize($0) }
            return nil
        }
        statements = prepared
    }

    deinit { statements.forEach { sqlite3_finalize($0) } }

    /// The statement whose rows are read.
    private var last: OpaquePointer { statements[statements.count - 1] }

    func bindText(_ index: Int32, _ text: UnsafePointer<CChar>, _ count: Int32, _ destructor: sqlite3_destructor_type?) {
        for statement in statements where index <= sqlite3_bind_parameter_count(statement) {
            sqlite3_bind_text(statement, index, text, count, destructor)
        }
    }

    func bindInt64(_ index: Int32, _ value: Int64) {
        for statement in statements where index <= sqlite3_bind_parameter_count(statement) {
            sqlite3_bind_int64(statement, index, value)
        }
    }

    func bindNull(_ index: Int32) {
        for statement in statements where index <= sqlite3_bind_parameter_count(statement) {
            sqlite3_bind_null(statement, index)
        }
    }

    /// `SQLITE_ROW`, `SQLITE_DONE` or the error of the statement that failed.
    func step() -> Int32 {
        if !leadingRan {
            leadingRan = true
            for statement in statements.dropLast() {
                var code = sqlite3_step(statement)
                while code == SQLITE_ROW { code = sqlite3_step(statement) }
                guard code == SQLITE_DONE else { return code }
            }
        }
        return sqlite3_step(last)
    }

    func column(_ index: Int32) -> Int64 { sqlite3_column_int64(last, index) }

    func reset() {
        statements.forEach { sqlite3_reset($0) }
        leadingRan = false
    }
}
