/// What a read on the calling thread came to (``LoopReading/performOnCallingThread(_:)``).
public enum CallingThreadRead<Value: Sendable>: Sendable {
    /// Read here: the value, or the store's refusal.
    case done(Result<Value, StoreError>)
    /// It would read more than the calling thread may (SQLite's `callingThreadReadBytes`): it belongs on
    /// the store's own threads, where its cost holds no one else up.
    case tooLarge
    /// The store cannot read on this thread now (its connection is busy, the file locked for a
    /// moment), or never does (PostgreSQL, whose reads are network round trips).
    case elsewhere
}
