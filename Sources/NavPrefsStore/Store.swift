public import NavPrefsCore

/// Where NavPrefs keeps profiles, their resources and their event log.
///
/// Every write is one transaction that changes the resource and appends its event to the log,
/// so the log never misses a change and never shows one that did not happen. A write returns
/// only once it is committed at the store's durability. Implementations: ``SQLiteStore``
/// (embedded, one process); a PostgreSQL store shares this contract for several instances.
public protocol Store: Sendable {
    /// The counter of `profile` if the store can answer from memory, without I/O; `nil` when it
    /// must be read with ``counter(of:)``. Lets the HTTP layer answer hot reads on its event loop.
    func cachedCounter(of profile: ProfileName) -> CounterLookup?

    /// The counter of `profile`. Throws ``StoreError/profileNotFound(_:)`` for a profile nobody
    /// wrote to; `default` always exists.
    func counter(of profile: ProfileName) async throws(StoreError) -> CounterState

    /// Applies `operation` atomically (one statement, no read-modify-write), creating the profile
    /// on its first write, and logs a `counter` event in the same transaction.
    /// - Throws: ``StoreError/preconditionFailed(current:)`` when `precondition` does not admit the
    ///   current version; ``StoreError/counter(_:)`` when the result would leave Int64.
    ///   Nothing is written or logged in either case.
    func apply(_ operation: CounterOperation, toCounterOf profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> CounterChange

    /// Logged events of `profile` with an id greater than `id`, oldest first, at most `limit`.
    func events(of profile: ProfileName, after id: Int64, limit: Int) async throws(StoreError) -> [LoggedEvent]

    /// Whether the store answers (for readiness checks).
    func ping() async throws(StoreError)

    /// Finishes queued writes and releases the store. Calls after this throw ``StoreError/closed``.
    func close() async
}

/// The answer of ``Store/cachedCounter(of:)``.
public enum CounterLookup: Sendable, Equatable {
    case found(CounterState)
    case profileNotFound
}
