import Foundation

/// How the SQLite file gives back the space deletes free: SQLite keeps freed pages in the file
/// for reuse unless told otherwise, so a file that once held a large event log or many values
/// would stay that large for good.
///
/// - The file runs with `auto_vacuum = INCREMENTAL`: freed pages are listed, and
///   ``returnFreePages(_:)`` moves pages from the end of the file into the free ones and
///   truncates it (at the next checkpoint, in WAL mode). The store runs it after each pruning.
///   A new file gets the mode before its first table; a file made before needs one `VACUUM` to
///   switch (``useIncrementalVacuum(_:)``, at the service's start, once).
/// - The write-ahead log is cut back to ``walLimit`` whenever a checkpoint resets it
///   (`journal_size_limit`), so a burst of large writes leaves no large `-wal` behind.
enum SQLiteFreeSpace {
    /// Bytes the `-wal` file keeps after a checkpoint resets it.
    static let walLimit = 16 << 20
    /// Pages moved per `incremental_vacuum` (each its own short write transaction): 8 MiB.
    static let pagesPerStep = 2_048

    /// Per connection, before anything is written: the mode a new file is created with, and
    /// the `-wal` limit.
    static let pragmas = "PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_size_limit = \(walLimit);"

    /// Switches a file made without incremental vacuum to it, with the one `VACUUM` that needs
    /// (it rewrites the file: 1.1 s for 200 MB on the project's machine, and room for a copy). Returns what it
    /// did, for the start's log; `nil` when the file is in that mode already.
    static func useIncrementalVacuum(_ connection: SQLiteConnection) throws(SQLiteError) -> String? {
        let mode = try connection.queryFirst("PRAGMA auto_vacuum") { $0.int64(0) } ?? 0
        guard mode != 2 else { return nil }
        let before = try fileBytes(connection)
        let started = ContinuousClock.now
        // The whole file went through the `-wal`: copied back and the log emptied now, before
        // any reader opens, rather than a file's size of log left until the next checkpoint.
        try connection.execute("PRAGMA auto_vacuum = INCREMENTAL; VACUUM; PRAGMA wal_checkpoint(TRUNCATE);")
        let elapsed = ContinuousClock.now - started
        let after = try fileBytes(connection)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return "the database now returns freed space to the file system (auto_vacuum = INCREMENTAL): one VACUUM rewrote it in "
            + String(format: "%.2f s, %d bytes before, %d after", seconds, before, after)
    }

    /// Gives the free pages back to the file system, a step at a time, at most `maxSteps`
    /// steps; returns how many pages were free before.
    @discardableResult
    static func returnFreePages(_ connection: SQLiteConnection, maxSteps: Int = 64) throws(SQLiteError) -> Int64 {
        let free = try connection.queryFirst("PRAGMA freelist_count") { $0.int64(0) } ?? 0
        var left = free
        for _ in 0..<maxSteps where left > 0 {
            try connection.execute("PRAGMA incremental_vacuum(\(pagesPerStep))")
            left = try connection.queryFirst("PRAGMA freelist_count") { $0.int64(0) } ?? 0
        }
        return free
    }

    /// Bytes of the database as its pages count them (the file once checkpointed).
    private static func fileBytes(_ connection: SQLiteConnection) throws(SQLiteError) -> Int64 {
        let pages = try connection.queryFirst("PRAGMA page_count") { $0.int64(0) } ?? 0
        let size = try connection.queryFirst("PRAGMA page_size") { $0.int64(0) } ?? 0
        return pages * size
    }
}
