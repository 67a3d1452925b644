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
/// The file holds every profile's data and the key that signs stream tokens, so it is created
/// `0600`, and an existing file readable by others (or its WAL and shared-memory files, which
/// SQLite creates with the database's mode) is tightened to `0600`, with a notice.
final class DatabaseFileLock: Sendable {
    private let descriptor: Int32
    /// What was tightened, for the start-up log.
    let notices: [String]

    init(path: String) throws(StoreError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .unavailable(reason: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .unavailable(reason: "\(path) is in use by another NavPrefs process")
        }
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
        self.descriptor = descriptor
        self.notices = notices
    }

    /// Releases the lock; call after every connection to the file is closed.
    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
