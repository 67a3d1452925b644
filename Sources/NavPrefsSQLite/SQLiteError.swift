import CSQLite
import NavPrefsStore

/// A failed SQLite call: the (extended) result code and SQLite's message.
/// Related SQLite documentation: <https://www.sqlite.org/rescode.html>
struct SQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String

    /// The primary result code (the low byte of an extended code).
    var primaryCode: Int32 { code & 0xFF }

    var description: String { "SQLite error \(code): \(message)" }

    /// Not SQLite's: a read on the event loop went past the bytes it may read there
    /// (``SQLiteConnection/rowBytesLeft``); it is read again on a reader. -1 is no SQLite code.
    static let readTooLargeHere = SQLiteError(code: -1, message: "the read is larger than the event loop may take")
    var isReadTooLargeHere: Bool { code == -1 }

    /// Errors a read may meet while the writer moves the WAL on (a checkpoint restarting the
    /// log, a WAL-index rebuilt under heavy load) and that a second attempt clears.
    var isTransientForReaders: Bool {
        primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED || primaryCode == SQLITE_PROTOCOL
    }

    /// What the rest of the service sees: stores never leak SQLite codes past this module.
    var storeError: StoreError {
        switch primaryCode {
        case SQLITE_BUSY, SQLITE_LOCKED:
            .unavailable(reason: "the database is locked (\(description))")
        case SQLITE_FULL:
            .unavailable(reason: "the disk holding the database is full")
        case SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM, SQLITE_NOMEM, SQLITE_PROTOCOL:
            .unavailable(reason: "the database cannot be read or written (\(message))")
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            .corrupted(reason: message)
        default:
            .internal(reason: description)
        }
    }
}
