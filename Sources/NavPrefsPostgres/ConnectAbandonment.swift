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
/// made is closed by that thread.
///
/// Safety (`@unchecked Sendable`): `handle` and `left` are read and written only under `lock`;
/// the handle is handed to exactly one owner (the waiter, or the thread that closes it).
final class AbandonableConnect: @unchecked Sendable {
    private let lock = NSCondition()
    private var handle: OpaquePointer?
    private var finished = false
    private var left = false

    /// Runs `connect` on a new thread and waits for it, checking `abandonment` every 50 ms.
    /// - Returns: the handle `connect` made (`nil` when libpq could not allocate one).
    static func run(_ connect: @escaping @Sendable () -> OpaquePointer?,
                    abandonment: ConnectAbandonment) throws(PostgresError) -> OpaquePointer? {
        guard !abandonment.isRequested else { throw abandoned }
        let attempt = AbandonableConnect()
        startNamedThread("pg-connect") { attempt.finish(connect()) }
        attempt.lock.lock()
        defer { attempt.lock.unlock() }
        while !attempt.finished {
            if abandonment.isRequested {
                attempt.left = true
                throw abandoned
            }
            _ = attempt.lock.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        return attempt.handle
    }

    private static var abandoned: PostgresError {
        PostgresError(.connection, "connecting was abandoned: the service is stopping")
    }

    private func finish(_ made: OpaquePointer?) {
        lock.lock()
        defer { lock.unlock() }
        if left {
            if let made { PQfinish(made) }
            return
        }
        handle = made
        finished = true
        lock.signal()
    }
}
