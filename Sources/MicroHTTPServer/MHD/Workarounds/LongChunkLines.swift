import CMicroHTTPD

/// Workaround ``MHDWorkarounds/refuseLongChunkLines``: a chunked body whose chunk line (the size
/// and its extensions) is longer than the connection's read buffer gets a prompt 400.
///
/// libmicrohttpd 0.9.75 reads a chunk line whole before it parses it; one longer than its read
/// buffer (about half of ``ServerConfiguration/connectionMemoryBytes``) never fits, so it stops
/// reading the connection and asks to be run again at once, every turn, until the body deadline
/// cuts the connection: a 9,000-byte extension got no answer for 60 s and kept the event loop
/// spinning meanwhile (issue 31). The server notices such a body by what it can see: the body
/// makes no progress while bytes wait unread in its socket and MHD wants to run at once. After
/// ``stalledFor`` of that, the handler's 400 goes to the socket and the connection is cut, as
/// for a body past its deadline.
extension ServerCore {
    /// How long a chunked body may make no progress with bytes waiting before it is refused:
    /// a few turns of a loop that spins, far less than a client sending normally ever stalls
    /// with bytes already in the socket.
    static let stalledFor: Int64 = 5_000_000  // nanoseconds

    /// Starts watching a chunked body (event-loop thread).
    func watchChunkLines(of context: RequestContext) {
        guard workarounds.contains(.refuseLongChunkLines) else { return }
        chunkedUploads[ObjectIdentifier(context)] = ChunkedUpload(context: context)
    }

    /// Refuses the chunked bodies that stalled behind a line MHD cannot hold (event-loop thread:
    /// after a run of MHD that asked to run again at once, and with the deadlines).
    func refuseLongChunkLines() {
        guard !chunkedUploads.isEmpty else { return }
        let now = cmhd_monotonic_ns()
        for (key, upload) in chunkedUploads {
            let context = upload.context
            guard case .receiving = context.phases.phase, !context.cutOff,
                  let peer = PeerInfo.of(context.connection.pointer), peer.socket >= 0 else {
                chunkedUploads[key] = nil
                continue
            }
            let received = context.phases.receivedBodyBytes
            guard received == upload.received, cmhd_pending_bytes(peer.socket) > 0 else {
                upload.received = received
                upload.stalledSince = nil
                continue
            }
            guard let since = upload.stalledSince else {
                upload.stalledSince = now
                continue
            }
            guard now - since >= Self.stalledFor else { continue }
            chunkedUploads[key] = nil
            let rejection = context.phases.cutShort(.chunkLineTooLong(limit: configuration.connectionMemoryBytes / 2))
            context.cutOff = true
            bodyBudget.release(context)
            peer.phase = .busy
            RawAnswer.send(handler.response(for: rejection, head: context.headForRefusal), on: peer.socket)
        }
    }
}

/// A chunked body being received, as ``ServerCore/refuseLongChunkLines()`` last saw it.
final class ChunkedUpload {
    let context: RequestContext
    var received = 0
    var stalledSince: Int64?

    init(context: RequestContext) { self.context = context }
}
