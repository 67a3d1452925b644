import CMicroHTTPD
import Synchronization

/// Workaround ``MHDWorkarounds/cutStalledStreams``: libmicrohttpd never asks a stream whose
/// client stopped reading for data again, so it never notices the stream's abort; the event
/// loop shuts such sockets down itself.
extension ServerCore {
    /// Connections ``cutAbortedStreams()`` shuts down per turn of the event loop. libmicrohttpd
    /// closes each in its next run, about 20 µs apiece on a debug build with the stream's end
    /// (its slot, its log line): 1,000 streams cut as too slow at once held one run 20-40 ms.
    static let cutsPerTurn = 16

    /// Shuts down the sockets of streams aborted while libmicrohttpd was waiting to send (too slow a reader, a shutdown); it then reads
    /// the error and closes the connection, which ends the stream. On the event-loop thread,
    /// where a stream still registered has a live connection (MHD releases it on this thread).
    /// At most ``cutsPerTurn`` per turn, oldest first; answers whether more wait (the loop then
    /// runs again at once).
    @discardableResult
    func cutAbortedStreams() -> Bool {
        let (ids, more) = mailbox.takeCuts(atMost: Self.cutsPerTurn)
        guard !ids.isEmpty else { return more }
        let cut: [ResponseStream] = registry.withLock { registry in ids.compactMap { registry.streams[$0] } }
        for stream in cut {
            let connection: ConnectionHandle
            switch stream.connection {
            case let socket as SuspendedStreamSocket: connection = socket.connection
            case let handle as ConnectionHandle: connection = handle
            default: continue
            }
            if let peer = PeerInfo.of(connection.pointer), peer.socket >= 0 { cmhd_shutdown_socket(peer.socket) }
        }
        return more
    }
}
