import Synchronization

/// libmicrohttpd is done with a request, or with a streamed response: what the server held for
/// it goes, and a client that left before its answer went out is reported to the handler.
/// Event-loop thread.
extension ServerCore {
    /// MHD is done with a request (answered, or the connection failed or closed). On keep-alive
    /// the connection now waits for the next request line, under the header deadline again.
    func requestCompleted(_ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>, on connection: OpaquePointer?, completedOK: Bool) {
        if let connection, let peer = PeerInfo.of(connection) {
            peer.phase = .headers
            peer.request = nil
        }
        guard let stored = slot.pointee else { return }
        slot.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(stored).takeRetainedValue()
        // A client that went away while an answer was being made: it has nowhere to go.
        let lost: AnswerNote? = if let unsent = context.awaitedResponse?.take() {
            AnswerNote(unsent)  // made, never handed to libmicrohttpd
        } else if let answer = context.answer, !completedOK, !context.answerDelivered {
            answer  // handed to it, and not sent whole
        } else {
            nil
        }
        context.awaitedResponse?.drop()
        context.awaitedAdmission?.drop()
        if let lost {
            // The one place the handler hears of it, so that its log does not end at the status
            // it answered: the connection failed or closed before the answer went out.
            handler.answerUndelivered(status: lost.status, headers: lost.headers, head: context.headForRefusal)
        }
        _ = registry.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(context)) }
        chunkedUploads[ObjectIdentifier(context)] = nil
        bodyBudget.release(context)
        requestsInFlight.subtract(1, ordering: .relaxed)
    }

    func streamReleased(_ stream: ResponseStream) {
        let watched = registry.withLock { registry in
            registry.streams.removeValue(forKey: stream.id)
            return registry.watched.removeValue(forKey: stream.id)
        }
        // Before libmicrohttpd closes the socket (it releases the response first): the watch
        // cannot outlive the connection into another one with the same descriptor.
        if case .stream(_, let socket)? = watched { socketWatch.unwatch(socket) }
        stream.terminated()
    }
}
