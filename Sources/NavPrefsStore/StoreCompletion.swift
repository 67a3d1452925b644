/// How a store hands a result back without a task: the thread that did the work (SQLite's
/// writer, a reader, a PostgreSQL pool thread) calls it once, with the value or the refusal.
///
/// The request path hands the value to the event loop from there, which renders the answer
/// (one hand-off each way, see `NavPrefsHTTPAPI`'s `APIResult.pending`); code that can wait
/// (commands, maintenance, tests) uses the `async` forms, which wrap this in a continuation.
public typealias StoreCompletion<Value> = @Sendable (Result<Value, StoreError>) -> Void

/// Awaits a store operation written with a ``StoreCompletion``.
package func awaitCompletion<Value: Sendable>(
    _ start: (@escaping StoreCompletion<Value>) -> Void
) async throws(StoreError) -> Value {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, StoreError>, Never>) in
        start { continuation.resume(returning: $0) }
    }
    return try result.get()
}
