import CMicroHTTPD
import Glibc
import Synchronization

/// The socket server's side of the step executor (``RequestStepExecutor``): each step carried
/// out with libmicrohttpd's calls, on the event-loop thread. A value the executor awaits (a
/// later admission, a later answer) suspends the connection; the producer's wake-up goes
/// through the loop's mailbox, and the connection is resumed before the next run of MHD
/// (``ServerCore/resumeAnswered()``).
extension ServerCore: StepTransport {
    var isClosing: Bool { closing.load(ordering: .acquiring) }

    func reserveBody(_ bytes: Int, for context: RequestContext) -> Bool { bodyBudget.reserve(bytes, for: context) }

    /// Into `receiving` (or on within it): a body that is to come has its deadline.
    func readOn(_ context: RequestContext) -> MHD_Result {
        if case .busy = PeerInfo.of(context.connection.pointer)?.phase { startBodyDeadline(context) }
        return .YES
    }

    func cut(_ context: RequestContext) -> MHD_Result {
        bodyBudget.release(context)
        return .NO
    }

    /// Suspends the connection (under the one-shot's lock, see ``OneShot``) and registers the
    /// request, so that shutdown can answer it.
    func suspend(_ context: RequestContext) {
        let waiting = SuspensionRegistry.Waiting(head: context.headForRefusal, response: context.awaitedResponse,
                                                 admission: context.awaitedAdmission)
        registry.withLock { $0.waiting[ObjectIdentifier(context)] = waiting }
        context.connection.suspend()
    }

    func wakeUp(_ context: RequestContext) -> @Sendable () -> Void {
        { [mailbox] in mailbox.answerReady(context) }
    }

    func waiting(_ context: RequestContext) -> MHD_Result { .YES }

    func stoppedWaiting(_ context: RequestContext) {
        _ = registry.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(context)) }
    }

    func responder(for shot: OneShot<HTTPResponse>, exchange context: RequestContext) -> HTTPResponder {
        HTTPResponder(shot: shot, receivedAt: context.receivedAt, tally: answerTally, answers: answerBudget)
    }

    private func startBodyDeadline(_ context: RequestContext) {
        guard context.phases.announcesBody, case .receiving = context.phases.phase else { return }
        if case .length(0) = context.phases.framing { return }
        PeerInfo.of(context.connection.pointer)?.phase = .body(context: context)
        if case .chunked = context.phases.framing { watchChunkLines(of: context) }
    }

    /// Queues `response` on the connection (libmicrohttpd copies what it needs): in a call of
    /// the access handler, or on the event loop while the connection is suspended.
    func queue(_ response: HTTPResponse, for context: RequestContext) -> MHD_Result {
        if let refusal = response.refusal { return queue(handler.response(for: refusal, head: context.headForRefusal), for: context) }
        context.phases.answered()
        bodyBudget.release(context)
        PeerInfo.of(context.connection.pointer)?.phase = .busy
        if case .stream = response.body {} else { context.answer = AnswerNote(response) }
        let closing = draining.load(ordering: .relaxed)
        if let prepared = response.prepared {
            return MHDResponse.queuePrepared(prepared, status: response.status, headers: response.headers, close: closing,
                                             on: context.connection.pointer)
        }
        switch response.body {
        case .bytes where response.status == 304:
            // libmicrohttpd would send `Content-Length: <bytes>`; a 304 may only repeat the 200's.
            return MHDResponse.queueOmitted(length: nil, status: 304, headers: response.headers, close: closing,
                                            on: context.connection.pointer)
        case .omitted(let length):
            return MHDResponse.queueOmitted(length: length, status: response.status, headers: response.headers, close: closing,
                                            on: context.connection.pointer)
        case .bytes(let bytes):
            return MHDResponse.queueBytes(bytes, status: response.status, headers: response.headers,
                                          close: closing, on: context.connection.pointer)
        case .stream where context.isHead && workarounds.contains(.headOfStreamUnframed):
            return MHDResponse.queueHeadOfStream(status: response.status, headers: response.headers,
                                                 on: context.connection.pointer)
        case .stream(let start):
            let socket = SuspendedStreamSocket(
                connection: context.connection, socket: PeerInfo.of(context.connection.pointer)?.socket ?? -1,
                chunked: context.isHTTP11 && !closing && !response.headers.contains(HeaderName.connection), sends: directSends,
                pacer: streamPacer)
            let stream = ResponseStream(connection: socket, maxBufferedBytes: configuration.maxBufferedStreamBytes,
                                        budget: streamBudget, id: makeID(),
                                        requestCut: { [mailbox] id in mailbox.requestCut(of: id) })
            registry.withLock { $0.streams[stream.id] = stream }
            let queued = MHDResponse.queueStream(stream, status: response.status, headers: response.headers,
                                                 core: self, on: context.connection.pointer)
            if queued == .YES, !context.isHead {
                if socket.socket >= 0 { cmhd_limit_send_buffer(socket.socket, Int32(clamping: configuration.streamSocketBufferBytes)) }
                watchHangUp(of: stream, socket: socket.socket)
                start(stream)
            }
            return queued
        }
    }
}
