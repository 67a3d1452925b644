/// The `async` forms of ``Store``'s three ways to run an operation, for code that can wait
/// (commands, maintenance, the admin and event routes, tests). Each wraps the completion form in
/// a continuation, so a store implements only that one.
extension Store {
    /// ``perform(_:completion:)`` for a read, awaited.
    public func perform<Value: Sendable>(_ read: StoreRead<Value>) async throws(StoreError) -> Value {
        try await awaitCompletion { perform(read, completion: $0) }
    }

    /// ``perform(_:completion:)`` for a write, awaited: returns once the write is committed.
    public func perform<Value: Sendable>(_ write: StoreWrite<Value>) async throws(StoreError) -> Value {
        try await awaitCompletion { perform(write, completion: $0) }
    }

    /// ``perform(_:remembering:answer:completion:)``, awaited.
    public func perform<Value: Sendable>(_ write: StoreWrite<Value>, remembering request: IdempotentRequest,
                                         answer: @escaping @Sendable (Value) -> RecordedAnswer)
        async throws(StoreError) -> IdempotentOutcome {
        try await awaitCompletion { perform(write, remembering: request, answer: answer, completion: $0) }
    }
}
