import CSQLite
import NavPrefsCore
import NavPrefsStore

/// A prepared statement, finalized when released. Its SQL may hold several statements: those
/// before the last run to their end on the first ``step()`` after a ``reset()``, and the rows
/// are the last one's (how SQLite's statements read back what they wrote without `RETURNING`,
/// see ``SQLiteStatements``).
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/stmt.html>
final class SQLiteStatement {
    /// The last statement of the SQL: the one whose rows are read.
    let handle: OpaquePointer
    private unowned let connection: SQLiteConnection
    /// For each value position (0: the value of `$1` or `?1`), the index SQLite gave that
    /// parameter. SQLite numbers `$n` parameters by first appearance, not by `n`, so binding by
    /// position would go wrong in a statement that names `$2` before `$1`.
    private let indices: [Int32]
    /// The statements before the last, in order, with their parameters' indices.
    private let leading: [(handle: OpaquePointer, indices: [Int32])]
    /// Whether the leading statements have run since the last ``reset()``.
    private var leadingRan = false

    init(sql: String, connection: SQLiteConnection) throws(SQLiteError) {
        var prepared: [OpaquePointer] = []
        let code = sql.withCString { text in
            var next: UnsafePointer<CChar>? = text
            while let start = next, start.pointee != 0 {
                var handle: OpaquePointer?
                let code = sqlite3_prepare_v3(connection.handle, start, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, &next)
                guard code == SQLITE_OK else { return code }
                if let handle { prepared.append(handle) }  // nil: only white space or a comment was left
            }
            return SQLITE_OK
        }
        do {
            try connection.check(code)
        } catch {
            prepared.forEach { sqlite3_finalize($0) }
            throw error
        }
        guard let last = prepared.popLast() else { throw SQLiteError(code: SQLITE_MISUSE, message: "empty statement: \(sql)") }
        self.handle = last
        self.connection = connection
        self.indices = Self.parameterIndices(of: last)
        self.leading = prepared.map { ($0, Self.parameterIndices(of: $0)) }
    }

    deinit {
        sqlite3_finalize(handle)
        for statement in leading { sqlite3_finalize(statement.handle) }
    }

    /// For each value position, the index of its parameter in `handle` (see ``indices``); 0
    /// for a position the statement does not name (a statement of several that reads `$1` and
    /// `$3` only).
    private static func parameterIndices(of handle: OpaquePointer) -> [Int32] {
        let count = sqlite3_bind_parameter_count(handle)
        guard count > 0 else { return [] }
        var numbered: [(number: Int, index: Int32)] = []
        for index in 1...count {
            // "$3" or "?3": the number after the sigil is the value's position. A parameter
            // without a name is a plain `?` (in order) or a gap below an `?N` (whose index is N).
            guard let name = sqlite3_bind_parameter_name(handle, index),
                  let number = Int(String(cString: name).dropFirst()), (1...999).contains(number) else { return Array(1...count) }
            numbered.append((number, index))
        }
        var indices = [Int32](repeating: 0, count: numbered.map(\.number).max() ?? 0)
        for parameter in numbered { indices[parameter.number - 1] = parameter.index }
        return indices
    }

    /// Binds `values` to the parameters `?1`, `?2`, ... Lists become JSON arrays, which the
    /// statements read with `json_each`. In SQL of several statements each takes the values of
    /// the parameters it names.
    func bind(_ values: [StatementValue]) throws(SQLiteError) {
        guard leading.isEmpty else {
            for statement in leading {
                try bind(values.prefix(statement.indices.count), to: statement.handle, at: statement.indices)
            }
            return try bind(values.prefix(indices.count), to: handle, at: indices)
        }
        for (offset, value) in values.enumerated() {
            // A value past the parameters (or in a gap between them) is bound past them, for
            // SQLite to refuse.
            let index = offset < indices.count && indices[offset] != 0 ? indices[offset] : Int32(offset + 1) + Int32(indices.count)
            try connection.check(Self.bind(value, to: handle, at: index))
        }
    }

    private func bind(_ values: ArraySlice<StatementValue>, to handle: OpaquePointer, at indices: [Int32]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() where indices[offset] != 0 {
            try connection.check(Self.bind(value, to: handle, at: indices[offset]))
        }
    }

    private static func bind(_ value: StatementValue, to handle: OpaquePointer, at index: Int32) -> Int32 {
        switch value {
        case .integer(let number): sqlite3_bind_int64(handle, index, number)
        case .bool(let flag): sqlite3_bind_int64(handle, index, flag ? 1 : 0)
        case .text(let text): bindText(text, to: handle, at: index)
        case .null: sqlite3_bind_null(handle, index)
        case .integers(let numbers):
            sqlite3_bind_text(handle, index, "[" + numbers.map(String.init).joined(separator: ",") + "]", -1, csqlite_transient())
        case .texts(let texts):
            sqlite3_bind_text(handle, index, JSONValue.array(texts.map(JSONValue.string)).jsonText, -1, csqlite_transient())
        }
    }

    /// Binds `text` from its UTF-8 bytes as they are (SQLite copies them): passing the String
    /// itself made a NUL-terminated copy of it first, an allocation per text parameter.
    private static func bindText(_ text: String, to handle: OpaquePointer, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            // An empty buffer may have no address, and NULL would bind NULL, not ''.
            guard let start = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_text(handle, index, "", 0, csqlite_transient()) }
            return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, Int32(clamping: bytes.count), csqlite_transient())
            }
        }
    }

    /// Advances to the next row; `false` when the statement is done. The first step after a
    /// reset runs the leading statements to their end first.
    func step() throws(SQLiteError) -> Bool {
        if !leadingRan {
            leadingRan = true
            for statement in leading {
                while true {
                    let code = sqlite3_step(statement.handle)
                    if code == SQLITE_ROW { continue }
                    try connection.check(code, expecting: SQLITE_DONE)
                    break
                }
            }
        }
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        try connection.check(code, expecting: SQLITE_DONE)
        return false
    }

    /// Makes the statement ready to run again and drops its bindings.
    func reset() {
        for statement in leading {
            sqlite3_reset(statement.handle)
            sqlite3_clear_bindings(statement.handle)
        }
        leadingRan = false
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

    /// Bytes of the row's text and blob columns (what reading them copies and decodes).
    var textBytes: Int {
        var total = 0
        for column in 0..<sqlite3_column_count(statement) {
            let type = sqlite3_column_type(statement, column)
            if type == SQLITE_TEXT || type == SQLITE_BLOB { total += Int(sqlite3_column_bytes(statement, column)) }
        }
        return total
    }

    /// The whole row, read into memory (integers as integers, NULL as NULL, the rest as text).
    var cells: StoreRow {
        let count = sqlite3_column_count(statement)
        var cells: [StoreRow.Cell] = []
        cells.reserveCapacity(Int(count))
        for column in 0..<count {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_NULL: cells.append(.null)
            case SQLITE_INTEGER: cells.append(.integer(int64(column)))
            default: cells.append(.text(text(column)))
            }
        }
        return StoreRow(cells)
    }
}
