import Synchronization

/// Workaround ``MHDWorkarounds/watchSuspendedHangUps``: a stream's client that leaves is
/// noticed at once, not at the next write.
///
/// libmicrohttpd 0.9.75 takes a suspended connection out of its epoll set ("While a connection
/// is suspended, MHD will not detect disconnects by the client"), and an idle event stream is
/// suspended nearly all the time: a client that closed its stream was noticed only when a
/// heartbeat or an event failed to go out, up to a heartbeat interval later, and its stream
/// counted against its client's limit until then (300 streams opened and closed one after
/// another met 44 refusals of the 256-per-client limit in issue 31). So the event loop watches
/// each stream's socket itself, edge-triggered, from the moment its answer is queued: a hang-up
/// or error aborts the stream, and a client that finished sending (it closed, or shut down its
/// side: a stream's client never sends again) ends it after what is queued. Either way
/// libmicrohttpd closes the connection in its next run and the stream's slot is free.
extension ServerCore {
    /// Starts watching the socket of `stream`, just queued.
    func watchHangUp(of stream: ResponseStream, socket: Int32) {
        guard workarounds.contains(.watchSuspendedHangUps), socket >= 0 else { return }
        registry.withLock { $0.watched[stream.id] = .stream(stream, socket: socket) }
        if !socketWatch.watchHangUp(socket, token: stream.id) {
            _ = registry.withLock { $0.watched.removeValue(forKey: stream.id) }
        }
    }

    /// What the watched sockets reported (event-loop thread).
    func handle(_ reports: [SocketWatch.Report]) {
        for report in reports {
            switch registry.withLock({ $0.watched[report.token] }) {
            case .stream(let stream, _)?:
                if report.hungUp {
                    stream.abort(.disconnected)
                } else if report.peerFinished {
                    stream.clientFinishedSending()
                }
            case .answer(let delivery)?:
                continueAnswer(delivery)
            case nil:
                continue  // released since; its socket left the set with it
            }
        }
    }
}
