import Foundation
import Glibc
public import NavPrefsStore

/// An online backup of a SQLite store: a consistent copy made while the service serves writes.
///
/// `VACUUM INTO` copies the database as one read transaction sees it: every transaction that
/// committed before it began, none that committed after, never part of one. A write the service
/// acknowledged had committed before its answer, so every write acknowledged before the backup
/// began is in the copy, and no write is half in it. The reader takes none of the service's
/// claim (its `flock`): SQLite's own locks let a reader beside the writer in WAL mode, and a
/// reader does not change what the service keeps in memory. Writes go on meanwhile; the WAL
/// grows until the copy ends, since a checkpoint cannot pass a running reader.
///
/// SQLite does not flush the copy to disk; this does, then gives it its name (a copy is written
/// as `NAME.partial` first), so a crash never leaves a file under the backup's name that is not
/// a whole database.
public enum SQLiteBackup {
    /// What a backup wrote.
    public struct Report: Sendable {
        public let bytes: Int64
        public let schemaVersion: Int
        public let profiles: Int64
        public let events: Int64
    }

    /// Copies the database at `source` to `destination`, which must not exist, and checks the copy.
    /// - Throws: ``StoreError/unavailable(reason:)`` naming the file at fault.
    public static func copy(from source: String, to destination: String) throws(StoreError) -> Report {
        guard FileManager.default.fileExists(atPath: source) else { throw .unavailable(reason: "no database at \(source)") }
        guard !FileManager.default.fileExists(atPath: destination) else { throw .unavailable(reason: "\(destination) exists") }
        // A service beside it writes its log as it goes: `probe(path:)` reads the -wal and -shm
        // as bytes only when none does (read while written, they look torn).
        let probe = try SQLiteStore.probe(path: source)
        if let damage = probe.damage { throw .unavailable(reason: "\(source) is damaged: \(damage)") }
        guard probe.isNavPrefs, probe.schemaVersion > 0 else { throw .unavailable(reason: "\(source) is not a NavPrefs database") }
        let partial = destination + ".partial"
        unlink(partial)  // what an interrupted backup left
        do {
            let connection = try SQLiteConnection(path: source, readOnly: true, create: false)
            try connection.execute("PRAGMA busy_timeout = 5000")
            try connection.run("VACUUM INTO ?1", .text(partial))
        } catch {
            unlink(partial)
            throw .unavailable(reason: "cannot copy \(source) to \(partial): \(error)")
        }
        do {
            try flush(partial)
            guard link(partial, destination) == 0 else { throw SQLiteBackupError("cannot name it \(destination): \(String(cString: strerror(errno)))") }
            unlink(partial)
            try flush(URL(fileURLWithPath: destination).deletingLastPathComponent().path)
            return try check(destination)
        } catch let error as StoreError {
            unlink(partial)
            throw error
        } catch {
            unlink(partial)
            throw .unavailable(reason: "\(error)")
        }
    }

    /// Reads the copy back: SQLite's quick check, its schema, what it holds.
    private static func check(_ path: String) throws(StoreError) -> Report {
        do {
            let connection = try SQLiteConnection(path: path, readOnly: true, create: false)
            let verdict = try connection.queryFirst("PRAGMA quick_check") { $0.text(0) } ?? "no answer"
            guard verdict == "ok" else { throw StoreError.corrupted(reason: "the copy \(path) fails SQLite's check: \(verdict)") }
            let version = try connection.queryFirst("PRAGMA user_version") { Int($0.int64(0)) } ?? 0
            let profiles = try connection.queryFirst("SELECT count(*) FROM profiles") { $0.int64(0) } ?? 0
            let events = try connection.queryFirst("SELECT count(*) FROM events") { $0.int64(0) } ?? 0
            let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
            return Report(bytes: size, schemaVersion: version, profiles: profiles, events: events)
        } catch {
            throw error.storeError
        }
    }

    /// Flushes the file (or directory) at `path` to disk.
    private static func flush(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SQLiteBackupError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw SQLiteBackupError("cannot flush \(path) to disk: \(String(cString: strerror(errno)))") }
    }
}

private struct SQLiteBackupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
