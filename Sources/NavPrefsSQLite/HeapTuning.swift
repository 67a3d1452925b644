import CSQLite

/// A process-wide setting that SQLite's commit pattern calls for, applied by the application at
/// start-up (it affects the whole process, so no store sets it on its own).
public enum HeapTuning {
    /// Keeps up to `bytes` of freed heap instead of returning it to the kernel after every
    /// commit: each commit frees and reallocates SQLite's page buffers, and glibc's default
    /// trimming turned that into `madvise`/`brk` calls on every write (bench/README.md).
    public static func keepFreedHeap(upTo bytes: Int) {
        _ = csqlite_set_malloc_trim_threshold(max(0, bytes))
    }

    /// Turns off SQLite's process-wide memory statistics, which it keeps under a mutex taken on
    /// every allocation of its own (several per statement); nothing reads them. Only before
    /// SQLite is first used in the process (it is a no-op after); `true` when it took effect.
    @discardableResult
    public static func skipSQLiteMemoryStatistics() -> Bool {
        csqlite_disable_memory_statistics() == SQLITE_OK
    }
}
