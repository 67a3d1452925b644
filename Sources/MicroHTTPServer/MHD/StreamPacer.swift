import CMicroHTTPD
import Synchronization

/// Bounds what the streams send in one turn of the event loop, so that an event written to a
/// thousand streams cannot hold every other connection for the time the thousand sends take.
///
/// Why: libmicrohttpd serves every ready connection once per run, and a stream's connection
/// takes one piece of its body per run, at most its write buffer (a few KiB with the default
/// pool). An event of 60 KB resumed on 1,000 streams whose clients do not read made five runs of
/// 1,000 sends each, 5-20 ms apiece on a debug build, and a request arriving meanwhile, whose
/// body is read one piece per run as well, waited for all of them: writes beside 1,000 never-
/// reading streams took 45-110 ms instead of 10 (issue 31's hostile check).
///
/// How: a turn lets the streams send at most ``sendsPerTurn`` pieces. A stream that has bytes
/// when the turn's share is spent, or that sent ``piecesPerResume`` pieces since its connection
/// was resumed while others wait, yields: its connection is suspended and waits here, in order.
/// The resumes of streams that got something to send wait here too, instead of resuming their
/// connections from the producer's thread. Each turn resumes the oldest waiting connections, as
/// many as the last turn left of its share (at least one): a connection resumed into a spent
/// share would only yield again. While some still wait, the loop does not sleep.
///
/// Every connection waiting here is resumed exactly once, and nothing else resumes it: a stream
/// that yields is not suspended in its own eyes (``ResponseStream`` resumes only the
/// connections its reader suspended for want of bytes).
final class StreamPacer: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `sendsLeft` and `othersWait` are read and written on the
    // event-loop thread only (by the loop and the content readers libmicrohttpd calls from it);
    // `waiting` is behind its lock.

    /// Pieces the streams may send per turn of the event loop.
    let sendsPerTurn: Int
    /// Pieces a stream may send after its connection was resumed before it lets waiting ones go first.
    let piecesPerResume: Int
    private var sendsLeft: Int
    /// Whether connections were left waiting at the start of this turn.
    private var othersWait = false
    private let waiting = Mutex(Waiting())

    /// The connections to resume, oldest first: `connections[head...]`.
    private struct Waiting: ~Copyable {
        var connections: [ConnectionHandle] = []
        var head = 0

        var count: Int { connections.count - head }
    }

    init(sendsPerTurn: Int, piecesPerResume: Int = 8) {
        self.sendsPerTurn = max(1, sendsPerTurn)
        self.piecesPerResume = max(1, piecesPerResume)
        sendsLeft = self.sendsPerTurn
    }

    /// Resumes `connection` in a coming turn (from any thread); the caller wakes the loop.
    func resumeSoon(_ connection: ConnectionHandle) {
        waiting.withLock { $0.connections.append(connection) }
    }

    /// Whether a stream that sent `pieces` pieces since its connection was resumed may send one
    /// more in this turn (event-loop thread).
    func maySend(after pieces: Int) -> Bool {
        sendsLeft > 0 && (pieces < piecesPerResume || !othersWait)
    }

    /// A stream sent a piece (event-loop thread).
    func sent() { sendsLeft -= 1 }

    /// Suspends `connection`, whose stream has bytes it may not send now, until a coming turn
    /// (event-loop thread, in its content reader).
    func yield(_ connection: ConnectionHandle) {
        connection.suspend()
        resumeSoon(connection)
    }

    /// Starts a turn (event-loop thread, before libmicrohttpd runs): a full share, and the
    /// oldest waiting connections resumed, as many as the last turn left unsent.
    func startTurn() {
        let room = max(1, sendsLeft)
        sendsLeft = sendsPerTurn
        let (due, left): (ArraySlice<ConnectionHandle>, Bool) = waiting.withLock { waiting in
            guard waiting.count > 0 else { return ([], false) }
            let end = waiting.head + min(waiting.count, room)
            let due = waiting.connections[waiting.head..<end]
            waiting.head = end
            if waiting.count == 0 {
                waiting.connections.removeAll(keepingCapacity: waiting.connections.capacity <= 4_096)
                waiting.head = 0
            } else if waiting.head >= 4_096 {
                waiting.connections.removeFirst(waiting.head)
                waiting.head = 0
            }
            return (due, waiting.count > 0)
        }
        othersWait = left
        for connection in due { connection.resumeOnLoop() }
    }

    /// Whether connections still wait to be resumed (the loop then runs again at once).
    var hasWaiting: Bool { waiting.withLock { $0.count > 0 } }
}
