import CMicroHTTPD
import Glibc
import Synchronization

/// The state libmicrohttpd's callbacks reach through their `cls` pointer, and the glue between
/// MHD's calls and the request-phase machine (``RequestPhases``): MHD reports, the machine
/// decides, this type carries the decision out with MHD's calls.
///
/// Runs on the event-loop thread, all of it, except where a method says otherwise: responders
/// are fulfilled from any thread (``OneShot``), and ``HTTPServer`` reads the counters.
/// ``HTTPServer`` owns it and keeps it alive until the daemon is stopped, so callbacks take it
/// unretained.
final class ServerCore: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `lastLibraryMessage` and `chunkedUploads` are touched only
    // on the event-loop thread (MHD logs request errors from there); everything else is
    // immutable or synchronised.

    let configuration: ServerConfiguration
    let handler: any HTTPHandler
    let waker: LoopWaker
    /// The event loop's epoll set, with the sockets the server watches itself.
    let socketWatch = SocketWatch()
    let workarounds: MHDWorkarounds
    let limits: RequestPhases.Limits
    /// Where libmicrohttpd's own messages go; `nil` drops them.
    let messageLog: (@Sendable (String) -> Void)?
    /// Requests waiting for a later answer or admission, and open streams: what shutdown ends.
    let registry = Mutex(Registry())
    /// Requests between their request line and MHD's completion notice.
    let requestsInFlight = Atomic<Int>(0)
    let openConnections = Atomic<Int>(0)
    /// Pieces of streamed bodies sent while their connection was suspended (``SuspendedStreamSocket``).
    let directSends = DirectSendCount()
    /// Counts the answers made on another thread than the event loop's.
    let answerTally = AnswerTally()
    /// Set once shutdown begins: answers carry `Connection: close` from then on.
    let draining = Atomic<Bool>(false)
    /// Set when the event loop is about to stop: a request that reaches its handler or its
    /// admission from then on is answered 503 at once, never handed off, so that nothing new is
    /// suspended (libmicrohttpd panics when its daemon is stopped with a suspended connection)
    /// and no write starts whose answer could not be sent.
    let closing = Atomic<Bool>(false)
    private let nextID = Atomic<Int>(0)
    /// The header and body deadlines of open connections (event-loop thread only).
    let deadlines: ConnectionDeadlines
    /// Bytes held by request bodies being received, against ``ServerConfiguration/maxBufferedBodyBytes``.
    let bodyBudget: BodyBudget
    /// Bytes streams hold unsent, against ``ServerConfiguration/maxBufferedStreamBytesTotal``.
    let streamBudget: StreamBudget
    /// Bytes of large answers held, against ``ServerConfiguration/maxBufferedAnswerBytes``.
    let answerBudget: AnswerBudget
    /// What the streams send per turn of the event loop, and the resumes of their connections.
    let streamPacer: StreamPacer
    /// The message libmicrohttpd logged just before a refusal of its own (see ``MHDWorkarounds/answerLibraryRefusals``).
    var lastLibraryMessage = ""
    /// Refusals of libmicrohttpd's own that could not be tied to one connection.
    let unattributedLibraryRefusals = Atomic<Int>(0)
    /// Chunked bodies being received, watched for a chunk line MHD cannot hold (event-loop
    /// thread only; ``refuseLongChunkLines()``).
    var chunkedUploads: [ObjectIdentifier: ChunkedUpload] = [:]
    /// Set when outstanding work is abandoned: answers the server is writing itself are cut.
    let abandoningSocketAnswers = Atomic<Bool>(false)
    /// What other threads hand the loop: answers of waiting requests, streams to cut.
    let mailbox: LoopMailbox

    struct Registry: ~Copyable {
        /// The one-shots of requests whose connection is suspended, with the head to refuse
        /// them with at shutdown (never the context itself: other threads read this).
        var waiting: [ObjectIdentifier: Waiting] = [:]
        var streams: [Int: ResponseStream] = [:]
        /// Sockets the loop watches itself, by token (``SocketWatch``).
        var watched: [Int: Watched] = [:]
        /// The answers the server is writing to sockets itself, by token: few and short-lived,
        /// kept apart from the streams' watches so the loop looks at them alone each turn.
        var answersOnSockets: [Int: AnswerOnSocket] = [:]
    }

    /// What a watched socket belongs to.
    enum Watched: Sendable {
        /// A stream's connection, watched for its client's hang-up while suspended.
        case stream(ResponseStream, socket: Int32)
        /// An answer the server writes to the socket itself (``AnswerOnSocket``).
        case answer(AnswerOnSocket)
    }

    struct Waiting {
        let head: HTTPRequestHead
        let response: OneShot<HTTPResponse>?
        let admission: OneShot<HTTPAdmission>?
    }

    init(configuration: ServerConfiguration, handler: any HTTPHandler, messageLog: (@Sendable (String) -> Void)?) {
        self.configuration = configuration
        self.handler = handler
        workarounds = configuration.workarounds
        waker = LoopWaker(enabled: configuration.workarounds.contains(.wakeOnResume))
        mailbox = LoopMailbox(waker: waker, tally: answerTally, cutsStalledStreams: configuration.workarounds.contains(.cutStalledStreams))
        limits = RequestPhases.Limits(configuration)
        self.messageLog = messageLog
        deadlines = ConnectionDeadlines(headerTimeout: configuration.headerTimeout, bodyTimeout: configuration.bodyTimeout)
        bodyBudget = BodyBudget(limit: configuration.maxBufferedBodyBytes)
        streamBudget = StreamBudget(limit: configuration.maxBufferedStreamBytesTotal, perStreamLimit: configuration.maxBufferedStreamBytes,
                                    socketBufferBytes: configuration.streamSocketBufferBytes)
        answerBudget = AnswerBudget(threshold: configuration.largeAnswerBytes, limit: configuration.maxBufferedAnswerBytes)
        streamPacer = StreamPacer(sendsPerTurn: configuration.streamSendsPerTurn)
    }

    func makeID() -> Int { nextID.wrappingAdd(1, ordering: .relaxed).newValue }

    var openStreamCount: Int { registry.withLock { $0.streams.count } }

    /// Whether no connection is suspended: no request waits for its answer or admission and no
    /// stream is open (an idle stream suspends its connection). Exact on the event-loop thread,
    /// which alone suspends connections and releases streams.
    var nothingSuspended: Bool { registry.withLock { $0.waiting.isEmpty && $0.streams.isEmpty } }

    // MARK: - Request line

    /// MHD parsed a request line (see `uriLogged`): creates the request's context, and judges the
    /// target as sent, before MHD splits and decodes it.
    func requestLineReceived(_ uri: UnsafePointer<CChar>, on connection: OpaquePointer) -> UnsafeMutableRawPointer {
        let inspection = TargetInspection.inspect(UnsafeRawBufferPointer(start: uri, count: strlen(uri)),
                                                  maxTargetBytes: configuration.maxTargetBytes,
                                                  maxQueryArguments: configuration.maxQueryArguments,
                                                  workarounds: workarounds)
        if let drop = inspection.argumentsToDrop { UnsafeMutablePointer(mutating: uri)[drop] = 0 }
        let context = RequestContext(connection: ConnectionHandle(pointer: connection, waker: waker),
                                     rawPath: inspection.rawPath, targetRejection: inspection.rejection, limits: limits)
        PeerInfo.of(connection)?.request = context
        requestsInFlight.add(1, ordering: .relaxed)
        return Unmanaged.passRetained(context).toOpaque()
    }

    // MARK: - Access handler

    /// One call of libmicrohttpd's access handler (see `Callbacks.swift`): the first call brings
    /// the header fields (before any body byte is read or `100 Continue` sent), each further
    /// call a piece of the body, the last one none. A connection suspended in a call is called
    /// again, without data, when it is resumed. MHD 0.9.75 accepts a response only on the first
    /// call (it then closes the connection, the body unread) or on the last.
    func handleCall(
        connection: OpaquePointer,
        url: UnsafePointer<CChar>,
        method: UnsafePointer<CChar>,
        version: UnsafePointer<CChar>,
        uploadData: UnsafePointer<CChar>?,
        uploadDataSize: UnsafeMutablePointer<Int>,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        // The URI log callback creates every context; without one there is nothing to go on.
        guard let stored = slot.pointee else { return .NO }
        let context = Unmanaged<RequestContext>.fromOpaque(stored).takeUnretainedValue()
        let size = uploadDataSize.pointee
        uploadDataSize.pointee = 0
        switch context.phases.phase {
        case .awaitingHeaders:
            return headersReceived(context, url: url, method: method, version: version)
        case .admitting:
            guard let decision = context.admission?.take() else { return context.cutOff ? .NO : .YES }
            context.admission = nil
            _ = registry.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(context)) }
            return carryOut(context.phases.admitted(decision, reserve: { bodyBudget.reserve($0, for: context) }), context)
        case .receiving:
            if size > 0 {
                let piece = UnsafeRawBufferPointer(start: uploadData, count: size)
                return carryOut(context.phases.bodyArrived(piece, reserve: { bodyBudget.reserve($0, for: context) }), context)
            }
            PeerInfo.of(connection)?.phase = .busy
            bodyBudget.release(context)
            return carryOut(context.phases.bodyComplete(), context)
        case .handling:
            return .YES  // cannot happen: handle runs within one call
        case .waiting:
            guard let response = context.response?.take() else { return .YES }
            context.response = nil
            _ = registry.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(context)) }
            return answer(context, with: response)
        case .answered:
            // After an answer written to the socket itself (408, a library refusal), or one that
            // could not be queued: drop it now.
            return context.cutOff ? .NO : .YES
        }
    }

    /// The header fields are in: the transport's own checks, then the application's admission.
    private func headersReceived(
        _ context: RequestContext, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>
    ) -> MHD_Result {
        let connection = context.connection.pointer
        let peer = PeerInfo.of(connection)
        peer?.phase = .busy
        let headers = MHDValues.headers(of: connection)
        let head = HTTPRequestHead(
            method: String(cString: method), path: String(cString: url),
            query: context.targetRejection == nil ? MHDValues.query(of: connection) : [],
            headers: headers, remoteAddress: peer?.remoteAddress, receivedAt: context.receivedAt,
            rawPath: context.rawPath)
        context.isHTTP11 = strcmp(version, "HTTP/1.1") == 0
        let refusal = transportRefusal(context, headers: headers, method: method, version: version)
        if workarounds.contains(.keepRoomForAnswer),
           let tight = PoolRoom.refusal(of: connection, headers: headers, configuration: configuration) {
            // No room in the pool to queue any answer, a refusal found already included: it
            // goes to the socket itself.
            let rejection = refusal ?? tight
            _ = context.phases.headersArrived(head, refusal: rejection)
            return answerOnSocket(context, rejection)
        }
        let step = context.phases.headersArrived(head, refusal: refusal)
        guard case .proceed = step else { return carryOut(step, context) }
        return carryOut(context.phases.admitted(handler.admit(head), reserve: { bodyBudget.reserve($0, for: context) }), context)
    }

    /// What the transport refuses before admission (``RequestPhases/transportRefusal``), measured
    /// on libmicrohttpd's parse of the head.
    private func transportRefusal(
        _ context: RequestContext, headers: HTTPHeaders, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>
    ) -> HTTPRejection? {
        let connection = context.connection.pointer
        return RequestPhases.transportRefusal(
            target: context.targetRejection, headerBytes: { cmhd_request_header_size(connection) },
            headerSectionIsWellFormed: { HeaderSectionShape.isWellFormed(of: connection, method: method, version: version) },
            headers: headers, httpVersion: { String(cString: version) }, configuration: configuration)
    }

    /// Carries out what the machine decided.
    private func carryOut(_ step: RequestPhases.Step, _ context: RequestContext) -> MHD_Result {
        if closing.load(ordering: .acquiring) {
            switch step {
            case .handle, .awaitAdmission:
                return answer(context, with: handler.response(for: .shuttingDown, head: context.headForRefusal))
            case .proceed, .refuse, .answer, .abandon:
                break
            }
        }
        switch step {
        case .proceed:
            // Into `receiving` (or on within it): a body that is to come has its deadline.
            if case .busy = PeerInfo.of(context.connection.pointer)?.phase { startBodyDeadline(context) }
            return .YES
        case .refuse(let rejection):
            return answer(context, with: handler.response(for: rejection, head: context.headForRefusal))
        case .answer(let response):
            return answer(context, with: response)
        case .abandon:
            bodyBudget.release(context)
            return .NO
        case .awaitAdmission(let decide):
            let shot = OneShot<HTTPAdmission>()
            context.admission = shot
            decide(HTTPAdmissionResponder(shot: shot))
            if let decision = shot.settle(suspend: { suspend(context) }, wake: { [mailbox] in mailbox.answerReady(context) }) {
                context.admission = nil
                return carryOut(context.phases.admitted(decision, reserve: { bodyBudget.reserve($0, for: context) }), context)
            }
            return .YES
        case .handle(let request):
            let shot = OneShot<HTTPResponse>()
            context.response = shot
            handler.handle(request, responder: HTTPResponder(shot: shot, receivedAt: context.receivedAt, tally: answerTally,
                                                             answers: answerBudget))
            if let response = shot.settle(suspend: { suspend(context) }, wake: { [mailbox] in mailbox.answerReady(context) }) {
                context.response = nil
                return answer(context, with: response)
            }
            context.phases.handlerWillAnswerLater()
            return .YES
        }
    }

    /// Suspends the connection (under the responder's lock, see ``OneShot``) and registers the
    /// request, so that shutdown can answer it.
    private func suspend(_ context: RequestContext) {
        let waiting = Waiting(head: context.headForRefusal, response: context.response, admission: context.admission)
        registry.withLock { $0.waiting[ObjectIdentifier(context)] = waiting }
        context.connection.suspend()
    }

    private func startBodyDeadline(_ context: RequestContext) {
        guard context.phases.announcesBody, case .receiving = context.phases.phase else { return }
        if case .length(0) = context.phases.framing { return }
        PeerInfo.of(context.connection.pointer)?.phase = .body(context: context)
        if case .chunked = context.phases.framing { watchChunkLines(of: context) }
    }

    /// Writes the handler's answer to `rejection` to the socket itself and cuts the connection
    /// (``RawAnswer``): where MHD could not queue it.
    private func answerOnSocket(_ context: RequestContext, _ rejection: HTTPRejection) -> MHD_Result {
        context.phases.answered()
        context.cutOff = true
        bodyBudget.release(context)
        guard let peer = PeerInfo.of(context.connection.pointer) else { return .NO }
        peer.phase = .busy
        RawAnswer.send(handler.response(for: rejection, head: context.headForRefusal), on: peer.socket)
        return .NO
    }

    /// Queues `response` on the connection (libmicrohttpd copies what it needs): in a call of
    /// the access handler, or on the event loop while the connection is suspended.
    func answer(_ context: RequestContext, with response: HTTPResponse) -> MHD_Result {
        if let refusal = response.refusal { return answer(context, with: handler.response(for: refusal, head: context.headForRefusal)) }
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

    // MARK: - Streams aborted while sending

    /// Connections ``cutAbortedStreams()`` shuts down per turn of the event loop. libmicrohttpd
    /// closes each in its next run, about 20 µs apiece on a debug build with the stream's end
    /// (its slot, its log line): 1,000 streams cut as too slow at once held one run 20-40 ms.
    static let cutsPerTurn = 16

    /// Workaround ``MHDWorkarounds/cutStalledStreams``: shuts down the sockets of streams aborted
    /// while libmicrohttpd was waiting to send (too slow a reader, a shutdown); it then reads
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

    // MARK: - Deadlines

    /// Cuts the connections past their header or body deadline; called by the event loop after
    /// each run of MHD (it checks once a second at most).
    func enforceDeadlines() {
        refuseLongChunkLines()
        deadlines.check(now: .now) { peer, phase in
            if case .body(let context) = phase, case .receiving = context.phases.phase {
                // MHD 0.9.75 accepts no response while a body is arriving: the handler's answer
                // (408, or the refusal found already) goes to the socket directly.
                let rejection = context.phases.bodyDeadlinePassed()
                context.cutOff = true
                bodyBudget.release(context)
                RawAnswer.send(handler.response(for: rejection, head: context.headForRefusal), on: peer.socket)
            }
            cmhd_shutdown_socket(peer.socket)
        }
    }

    // MARK: - Completion notices

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
        let lost: AnswerNote? = if let unsent = context.response?.take() {
            AnswerNote(unsent)  // made, never handed to libmicrohttpd
        } else if let answer = context.answer, !completedOK, !context.answerDelivered {
            answer  // handed to it, and not sent whole
        } else {
            nil
        }
        context.response?.drop()
        context.admission?.drop()
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

    // MARK: - Shutdown

    /// Ends every open stream (after what is queued) so clients reconnect elsewhere.
    func finishStreams() {
        let streams = registry.withLock { Array($0.streams.values) }
        for stream in streams { stream.finish() }
    }

    /// Answers every request still waiting for its handler or admission with 503, and aborts
    /// every stream. From any thread.
    func abandonOutstandingWork() {
        let (waiting, streams) = registry.withLock { (Array($0.waiting.values), Array($0.streams.values)) }
        for request in waiting {
            let refusal = handler.response(for: .shuttingDown, head: request.head)
            _ = request.response?.fulfil(refusal)
            _ = request.admission?.fulfil(.answer(refusal))
        }
        for stream in streams { stream.abort(.serverShutdown) }
        abandoningSocketAnswers.store(true, ordering: .relaxed)
        waker.wake()
    }
}
