import Glibc
import NavPrefsStore

/// An exclusive `flock` on the database file, held while a store has it open.
///
/// The SQLite store keeps state in memory (caches, the writer's view), which is only right if
/// no other process writes the file; a second `navprefs` on the same file is refused instead.
/// (SQLite's own locks are `fcntl` locks, which `flock` does not interact with on Linux. The
/// descriptor stays open until the store's connections are closed: closing any descriptor of
/// a file drops the process's `fcntl` locks on it.)
final class DatabaseFileLock: Sendable {
    private let descriptor: Int32

    init(path: String) throws(StoreError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .unavailable(reason: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .unavailable(reason: "\(path) is in use by another NavPrefs process")
        }
        self.descriptor = descriptor
    }

    /// Releases the lock; call after every connection to the file is closed.
    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
