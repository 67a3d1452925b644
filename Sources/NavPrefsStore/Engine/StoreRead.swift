import NavPrefsCore

/// One read of the store algorithm as a value: the steps it runs on a connection, and whether
/// they need one snapshot.
///
/// The request path runs reads through ``Store/perform(_:completion:)``, which reads on the
/// calling thread when the store can do so without waiting for another thread (SQLite: a
/// connection kept for that, see ``TransactionalStore/readHere(snapshot:_:)``), and otherwise on
/// a reader's thread, with no task in between. The `async` reads of ``Store`` run the same
/// values on the store's readers.
public struct StoreRead<Value: Sendable>: Sendable {
    /// Whether every statement must see the same committed state (one read transaction).
    let snapshot: Bool
    let body: @Sendable (any StoreTransaction) throws -> Value

    package init(snapshot: Bool, _ body: @escaping @Sendable (any StoreTransaction) throws -> Value) {
        self.snapshot = snapshot
        self.body = body
    }
}
