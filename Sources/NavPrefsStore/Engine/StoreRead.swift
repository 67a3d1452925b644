import NavPrefsCore

/// One read of the store algorithm as a value: the steps it runs on a connection, and whether
/// they need one snapshot.
///
/// The request path runs reads through ``Store/perform(_:completion:)``, which reads on the
/// calling thread when the store can do so without waiting for another thread (SQLite: a
/// connection kept for that, see ``TransactionalStore/readOnCallingThread(snapshot:_:)``), and otherwise on
/// a reader's thread, with no task in between. The `async` reads of ``Store`` run the same
/// values on the store's readers.
public struct StoreRead<Value: Sendable>: Sendable {
    /// Whether every statement must see the same committed state (one read transaction).
    let snapshot: Bool
    let body: @Sendable (any StoreTransaction) throws -> Value
    /// Whether only the primary database may answer, never a standby that may lag it by a
    /// commit: the event log's bounds and replays (a stream pairs them with the primary's
    /// notifications) and the readiness ping (which must say whether writes are served).
    let needsPrimary: Bool

    package init(snapshot: Bool, needsPrimary: Bool = false, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value) {
        self.snapshot = snapshot
        self.needsPrimary = needsPrimary
        self.body = body
    }
}
