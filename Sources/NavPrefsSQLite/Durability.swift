/// What an acknowledged write survives, for stores that let you choose.
public enum Durability: String, Sendable, CaseIterable {
    /// Each commit is flushed to stable storage before the write is acknowledged (what SQLite's
    /// `synchronous=FULL` promises; the store commits at `NORMAL` and its ``WALSyncer`` flushes
    /// the write-ahead log before any answer): it survives a crash of the process, of the OS
    /// and a power loss, if the disk honours flushes. Concurrent writes share one flush.
    case full
    /// Each commit is in the OS page cache before the write is acknowledged (SQLite WAL with
    /// `synchronous=NORMAL`): it survives a crash of the process (`kill -9`), but the last
    /// commits may be lost to an OS crash or power loss. The database is never corrupted.
    case normal
}
