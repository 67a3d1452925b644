import NavPrefsCore
public import NavPrefsStore

/// Reads while the primary is away (a failover, a partition): they run again on a standby.
///
/// Why: promoting a standby takes seconds, and during them every instance would answer every
/// read 503 though a synchronous standby holds every acknowledged write. Its answers carry
/// their versions as always; one may be a few milliseconds older than the newest commit (the
/// standby has the commit on disk before the primary acknowledges it, and applies it just
/// after), which a version-aware client can tell. Only reads fall back, never a write, and
/// never what keeps event streams gapless (the log's bounds and replays, which the sequencer
/// pairs with the primary's notifications) nor the readiness ping, which must say that writes
/// are not served.
///
/// The standby pool's connections use `target_session_attrs=prefer-standby` on the same hosts:
/// a standby if one answers, else whichever node does. They are opened only when first needed.
extension PostgresStore {
    /// Threads (and connections, once used) for reads on a standby.
    static let standbyPoolSize = 2

    /// On the primary; on a standby when the primary's reads are stuck (``PrimaryReadWatch``)
    /// or once the primary answered ``StoreError/unavailable(reason:)``. A standby's refusal
    /// (any error, also one of `body`'s own: it may lag a commit) sends the read to the primary,
    /// whose answer is the one that counts.
    func readFallingBack<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value,
                                          completion: @escaping StoreCompletion<Value>) {
        guard options.access.background else { return readOnPrimary(snapshot: snapshot, body, completion: completion) }
        let onPrimary: @Sendable () -> Void = { [self] in
            primaryReads.begin()
            readOnPrimary(snapshot: snapshot, body) { [self] result in
                primaryReads.end()
                guard case .failure(.unavailable) = result else { return completion(result) }
                readOnPrimary(snapshot: snapshot, on: standbyPool, body) { standby in
                    if case .success = standby { completion(standby) } else { completion(result) }
                }
            }
        }
        guard primaryReads.isStalled else { return onPrimary() }
        readOnPrimary(snapshot: snapshot, on: standbyPool, body) { standby in
            if case .success = standby { completion(standby) } else { onPrimary() }
        }
    }

    /// The reads that must see the primary (``StoreRead/needsPrimary``): never a standby.
    public func readFromPrimary<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value,
                                                 completion: @escaping StoreCompletion<Value>) {
        readOnPrimary(snapshot: snapshot, body, completion: completion)
    }

    /// ``readOnPrimary(snapshot:on:_:completion:)``, awaited.
    func readOnPrimary<Value: Sendable>(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value)
        async throws(StoreError) -> Value {
        try await awaitCompletion { readOnPrimary(snapshot: snapshot, body, completion: $0) }
    }
}
