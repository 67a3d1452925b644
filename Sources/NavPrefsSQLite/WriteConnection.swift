import Foundation
import Synchronization

/// The one write connection, shared by the two threads that write: the writer thread (heavy
/// writes, writes from tasks and commands, maintenance) and the event loop, which runs light
/// writes in its own turn (``TurnWrites``). One of them holds it at a time.
///
/// The writer takes it and waits for it (``withConnection(_:)``); the loop only takes it when
/// it is free and the writer does not want it (``tryTakeForTurn()``), so the loop never waits
/// and the writer is never starved by turns that follow each other.
///
/// Safety (`@unchecked Sendable`): `context` is read and written only while `lock` is held;
/// the connection in it is used only by the thread that holds the lock. `NSLock` rather than
/// `Mutex`: the loop holds it across calls (from a turn's first write to its end), on one thread.
final class WriteConnection: @unchecked Sendable {
    private let lock = NSLock()
    private var context: WriteContext?
    /// Threads waiting in ``withConnection(_:)``: while any is, turns leave the connection alone.
    private let wanted = Atomic<Int>(0)
    /// How long the writer's statements wait for another process' lock (`navprefs tokens`
    /// writing beside the service); a turn's never wait.
    private let busyTimeoutMilliseconds: Int32 = 5_000

    init() {}

    /// Whether a thread waits for the connection in ``withConnection(_:)``.
    var isWanted: Bool { wanted.load(ordering: .relaxed) > 0 }

    /// Hands the opened connection over (the writer thread, once it opened it).
    func install(_ context: WriteContext) {
        lock.lock()
        self.context = context
        lock.unlock()
    }

    /// Runs `body` with the connection, waiting for it; `nil` once it is closed.
    @discardableResult
    func withConnection<T>(_ body: (WriteContext) throws -> T) rethrows -> T? {
        wanted.add(1, ordering: .relaxed)
        lock.lock()
        wanted.subtract(1, ordering: .relaxed)
        defer { lock.unlock() }
        guard let context else { return nil }
        return try body(context)
    }

    /// The connection for the calling thread's turn, if it is free and nobody waits for it;
    /// the caller gives it back with ``giveBackFromTurn()`` on the same thread. Its statements
    /// fail at once on another process' lock instead of waiting (`busy_timeout` 0).
    func tryTakeForTurn() -> WriteContext? {
        guard wanted.load(ordering: .relaxed) == 0, lock.try() else { return nil }
        guard let context else {
            lock.unlock()
            return nil
        }
        context.connection.setBusyTimeout(milliseconds: 0)
        return context
    }

    func giveBackFromTurn() {
        context?.connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
        lock.unlock()
    }

    /// Closes the connection (SQLite checkpoints the log into the database and removes it),
    /// once nothing writes any more.
    func close() {
        lock.lock()
        context = nil
        lock.unlock()
    }
}
