import CMicroHTTPD
import Synchronization

/// The connection of a streamed response, which can send a piece of body to the client itself
/// while libmicrohttpd has the connection suspended: what a heartbeat or an event to an idle
/// stream costs is then one `send`, on the producer's thread, instead of a resume, a wake-up of
/// the event loop, two `epoll_ctl` calls, the content reader and a suspend (about 26 µs of the
/// event loop per heartbeat, measured in bench/README.md, "SSE fan-out").
///
/// Why it is safe: libmicrohttpd 0.9.75 asks a chunked body's content reader for more only once
/// everything it queued before has been sent (`MHD_CONNECTION_CHUNKED_BODY_UNREADY` follows
/// `check_write_done`), and a suspended connection's socket is out of its epoll set and untouched
/// until it is resumed. So while ``ResponseStream`` has the connection suspended with nothing
/// queued (it checks both under its lock), the socket carries complete chunks only, and a chunk
/// sent here is framed exactly as libmicrohttpd frames one.
///
/// Only a small piece goes out this way, and only to a socket whose every byte so far has been
/// sent and acknowledged (`SIOCOUTQ` is 0): such a send is whole, so the framing cannot break,
/// and a client that reads slowly keeps the queue's patience (``ResponseStream/Termination/tooSlow``
/// after ``ServerConfiguration/maxBufferedStreamBytes``). Everything else takes the queue as
/// before: a larger piece, a socket with bytes in flight, a response that is not chunked
/// (HTTP/1.0, or an answer with `Connection: close`, which libmicrohttpd may frame by closing).
/// A send that fails (the client left) or, against expectation, only partly goes out ends the
/// stream; the client reconnects with its last event id.
struct SuspendedStreamSocket: StreamConnection {
    let connection: ConnectionHandle
    /// The connection's socket; -1 sends nothing directly.
    let socket: Int32
    /// Whether libmicrohttpd frames this body in chunks (an HTTP/1.1 request, no `Connection: close`).
    let chunked: Bool
    /// Counts the pieces sent directly (``HTTPServer/directStreamSends``).
    let sends: DirectSendCount
    /// Where the resume waits for its turn of the event loop (``StreamPacer``).
    let pacer: StreamPacer

    func suspend() { connection.suspend() }

    /// The connection is resumed by the event loop, in a coming turn, with at most as many
    /// others as the turn sends pieces.
    func resume() {
        pacer.resumeSoon(connection)
        connection.waker.wake()
    }

    /// The largest piece sent directly: well under the smallest send buffer Linux gives a TCP socket.
    static let maxDirectBytes = 4_000

    func sendWhileSuspended(_ bytes: [UInt8]) -> DirectSend {
        guard chunked, socket >= 0, bytes.count <= Self.maxDirectBytes, cmhd_unsent_bytes(socket) == 0 else { return .notSent }
        var chunk = Array(String(bytes.count, radix: 16).utf8)
        chunk.reserveCapacity(chunk.count + bytes.count + 4)
        chunk.append(contentsOf: [13, 10])
        chunk.append(contentsOf: bytes)
        chunk.append(contentsOf: [13, 10])
        let sent = chunk.withUnsafeBytes { cmhd_send_or_would_block(socket, $0.baseAddress, $0.count) }
        switch sent {
        case chunk.count:
            sends.count.add(1, ordering: .relaxed)
            return .sent
        case 0: return .notSent
        default: return .failed
        }
    }
}

/// How many pieces of streamed bodies went out directly (``SuspendedStreamSocket``).
final class DirectSendCount: Sendable {
    let count = Atomic<Int>(0)
}
