import Glibc
import NavPrefsStore

/// An exclusive `flock` on the database file, held while a store has it open, and the file's
/// permissions kept to its owner.
///
/// The SQLite store keeps state in memory (caches, the writer's view), which is only right if
/// no other process writes the file; a second `navprefs` on the same file is refused instead.
/// (SQLite's own locks are `fcntl` locks, which `flock` does not interact with on Linux. The
/// descriptor stays open until the store's connections are closed: closing any descriptor of
/// a file drops the process's `fcntl` locks on it.)
///
/// Commands that work beside a running service (`navprefs tokens`, `export`, `backup`) take no
/// such lock: SQLite itself coordinates their connections with the service's, and what they
/// may do is limited so that the service's memory stays right (see ``StoreAccess``).
///
/// The file holds every profile's data and the key that signs stream tokens, so it is created
/// `0600`, and an existing file readable by others (or its WAL and shared-memory files, which
/// SQLite creates with the database's mode) is tightened to `0600`, with a notice.
final class DatabaseFileLock: Sendable {
    private let descriptor: Int32
    /// What was tightened, for the start-up log.
    let notices: [String]

    /// Takes the lock, or throws when another process holds it. Creates the file only if `create`.
    convenience init(path: String, create: Bool = true) throws(StoreError) {
        guard let lock = try Self.attempt(path: path, create: create) else {
            throw .unavailable(reason: "\(path) is in use by another NavPrefs process\(Self.holder(of: path).map { " (\($0))" } ?? "")")
        }
        self.init(descriptor: lock.descriptor, notices: lock.notices)
    }

    private init(descriptor: Int32, notices: [String]) {
        self.descriptor = descriptor
        self.notices = notices
    }

    /// Takes the lock if no other process holds it; `nil` when one does (a service serves the file).
    static func attempt(path: String, create: Bool) throws(StoreError) -> DatabaseFileLock? {
        let descriptor = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0o600)
        guard descriptor >= 0 else {
            throw .unavailable(reason: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return DatabaseFileLock(descriptor: descriptor, notices: tighten(path))
    }

    /// Makes the database, its WAL and shared-memory files `0600` where they are wider; says
    /// what it changed, or could not.
    private static func tighten(_ path: String) -> [String] {
        var notices: [String] = []
        for file in [path, path + "-wal", path + "-shm"] {
            var status = stat()
            guard stat(file, &status) == 0, status.st_mode & 0o077 != 0 else { continue }
            if chmod(file, 0o600) == 0 {
                notices.append("\(file) was readable or writable by others (mode \(String(status.st_mode & 0o777, radix: 8))); it is 0600 now")
            } else {
                notices.append("\(file) is readable or writable by others (mode \(String(status.st_mode & 0o777, radix: 8))) and could not be changed: \(String(cString: strerror(errno)))")
            }
        }
        return notices
    }

    /// Whether another process holds the lock now (a service serves the file). Looks with a
    /// shared lock taken and dropped at once, never waiting.
    static func isHeld(path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return true }
        flock(descriptor, LOCK_UN)
        return false
    }

    /// Who holds the lock on `path` (`PID 4242, listening on port 8080`), as `/proc` tells;
    /// `nil` when nobody does or it cannot be read.
    static func holder(of path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return LockHolder.describe(fileOpenAs: descriptor)
    }

    /// Releases the lock; call after every connection to the file is closed.
    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
