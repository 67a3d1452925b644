import CPostgres
import Foundation
import NavPrefsStore
import Synchronization

/// A request to give up connecting: a SIGTERM while PostgreSQL does not answer must stop the
/// start-up at once, not after libpq's connect timeout (5 s by default, 60 s in some URLs).
///
/// libpq's blocking connect (`PQconnectdbParams`) is kept, because it alone moves on to the next
/// host of a multi-host URL when one times out (`PQconnectPoll` leaves timeouts to the caller
/// and has no way to skip a host); it runs on a thread of its own, and the caller stops waiting
/// for it when the connect is abandoned.
public final class ConnectAbandonment: Sendable {
    private let requested = Atomic<Bool>(false)

    public init() {}

    /// From now on, connects waiting with this object give up, and new ones fail at once.
    public func abandon() { requested.store(true, ordering: .releasing) }

    public var isRequested: Bool { requested.load(ordering: .acquiring) }
}

/// One blocking connect on its own thread, which the waiter may leave: the connection then
/// made is closed by that thread. The handle travels through a ``JobQueue``, the one hand-off
/// between threads: the waiter takes it, or closes the queue when it leaves, and then a handle
/// that arrives finds the queue closed and is closed by the thread that made it.
enum AbandonableConnect {
    /// libpq's handle, handed from the connecting thread to exactly one owner.
    ///
    /// Safety (`@unchecked Sendable`): the handle is used by one thread at a time: the connecting
    /// thread until it submits it, then whoever takes it from the queue.
    private struct Made: @unchecked Sendable {
        let handle: OpaquePointer?
    }

    /// Runs `connect` on a new thread and waits for it, checking `abandonment` every 50 ms.
    /// - Returns: the handle `connect` made (`nil` when libpq could not allocate one).
    static func run(_ connect: @escaping @Sendable () -> OpaquePointer?,
                    abandonment: ConnectAbandonment) throws(PostgresError) -> OpaquePointer? {
        guard !abandonment.isRequested else { throw abandoned }
        let made = JobQueue<Made>()
        startNamedThread("pg-connect") {
            let attempt = Made(handle: connect())
            // Refused: the waiter left; nobody else will close this connection.
            if !made.submit(attempt), let handle = attempt.handle { PQfinish(handle) }
        }
        while true {
            if let arrived = made.take(upTo: 1, until: Date(timeIntervalSinceNow: 0.05))?.first { return arrived.handle }
            if abandonment.isRequested {
                made.close()
                // A handle submitted just before the close is closed here.
                for late in made.takeAllQueued() { if let handle = late.handle { PQfinish(handle) } }
                throw abandoned
            }
        }
    }

    private static var abandoned: PostgresError {
        PostgresError(.connection, "connecting was abandoned: the service is stopping")
    }
}
