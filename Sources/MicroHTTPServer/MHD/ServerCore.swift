import CMicroHTTPD
import Synchronization

/// The state libmicrohttpd's callbacks reach through their `cls` pointer: the handler, the
/// limits, the queue of deferred work and the registry of suspended requests and open streams.
///
/// ``HTTPServer`` owns it and keeps it alive until the daemon is stopped, so callbacks take it
/// unretained.
final class ServerCore: Sendable {
    /// Deferred work (an admission decision or a response): runs in ``HTTPServer/run()``'s task
    /// group and hands its outcome to its request itself.
    struct DeferredJob: Sendable {
        let run: @Sendable () async -> Void
    }

    struct Registry: ~Copyable {
        var waiting: [Int: RequestContext] = [:]
        var streams: [Int: ResponseStream] = [:]
        /// Streams aborted while libmicrohttpd was sending, whose connections the loop cuts.
        var cuts: [Int] = []
    }

    let configuration: ServerConfiguration
    let handler: any HTTPHandler
    let waker: LoopWaker
    /// Where libmicrohttpd's own messages go; `nil` drops them.
    let messageLog: (@Sendable (String) -> Void)?
    let jobs: AsyncStream<DeferredJob>
    let jobSink: AsyncStream<DeferredJob>.Continuation
    let registry = Mutex(Registry())
    /// Requests between their first handler call and MHD's completion notice.
    let requestsInFlight = Atomic<Int>(0)
    let openConnections = Atomic<Int>(0)
    /// Set once shutdown begins: answers carry `Connection: close` from then on.
    let draining = Atomic<Bool>(false)
    private let nextID = Atomic<Int>(0)
    /// The header and body deadlines of open connections (event-loop thread only).
    let deadlines: ConnectionDeadlines
    /// Bytes held by request bodies being received, against ``ServerConfiguration/maxBufferedBodyBytes``.
    let bodyBudget: BodyBudget

    init(configuration: ServerConfiguration, handler: any HTTPHandler, waker: LoopWaker,
         messageLog: (@Sendable (String) -> Void)?) {
        self.configuration = configuration
        self.handler = handler
        self.waker = waker
        self.messageLog = messageLog
        deadlines = ConnectionDeadlines(headerTimeout: configuration.headerTimeout, bodyTimeout: configuration.bodyTimeout)
        bodyBudget = BodyBudget(limit: configuration.maxBufferedBodyBytes)
        (jobs, jobSink) = AsyncStream.makeStream(of: DeferredJob.self, bufferingPolicy: .unbounded)
    }

    func makeID() -> Int { nextID.wrappingAdd(1, ordering: .relaxed).newValue }

    var openStreamCount: Int { registry.withLock { $0.streams.count } }

    // MARK: - Request line

    /// MHD parsed a request line (see `uriLogged`): creates the request's context, and judges the
    /// target as sent, before MHD splits and decodes it.
    func requestLineReceived(_ uri: UnsafePointer<CChar>, on connection: OpaquePointer) -> UnsafeMutableRawPointer {
        let target = MHDValues.inspectTarget(uri, maxTargetBytes: configuration.maxTargetBytes,
                                             maxQueryArguments: configuration.maxQueryArguments)
        let context = RequestContext(connection: ConnectionHandle(pointer: connection, waker: waker), id: makeID(),
                                     rawPath: target.rawPath, targetRejection: target.rejection)
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
        guard let stored = slot.pointee else {
            // The URI log callback creates every context; without one there is nothing to go on.
            return .NO
        }
        let context = Unmanaged<RequestContext>.fromOpaque(stored).takeUnretainedValue()
        let size = uploadDataSize.pointee
        uploadDataSize.pointee = 0
        switch context.phase {
        case .awaitingHeaders:
            return headersReceived(context, url: url, method: method, version: version)
        case .admitting:
            return admissionDecided(context)
        case .receiving:
            if size > 0 {
                return receiveBody(UnsafeRawBufferPointer(start: uploadData, count: size), into: context)
            }
            return finishRequest(context)
        case .waiting:
            _ = registry.withLock { $0.waiting.removeValue(forKey: context.id) }
            guard case .response(let response)? = context.takeOutcome() else { return answer(context, with: HTTPResponse(status: 500)) }
            return answer(context, with: response)
        case .answered:
            // After a 408 written to the socket itself: drop the connection now.
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
        context.head = head
        if let rejection = transportRejection(context, method: method, version: version) {
            return refuseNow(context, rejection)
        }
        return apply(handler.admit(head), to: context)
    }

    /// What the transport refuses before admission, in the order a client is best told about.
    private func transportRejection(
        _ context: RequestContext, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>
    ) -> HTTPRejection? {
        if let rejection = context.targetRejection { return rejection }
        let connection = context.connection.pointer
        if cmhd_request_header_size(connection) > configuration.maxHeaderBytes {
            return .headersTooLarge(limit: configuration.maxHeaderBytes)
        }
        if !MHDValues.headerSectionIsWellFormed(of: connection, method: method, version: version) {
            return .malformedHeaderSection
        }
        switch FramingCheck.framing(of: context.head?.headers ?? HTTPHeaders()) {
        case .failure(let reason): return reason.rejection
        case .success(let framing): context.framing = framing
        }
        return nil
    }

    /// Carries out an admission decision; called on the first call, or on the call after the
    /// resume that a deferred decision caused.
    private func apply(_ admission: HTTPAdmission, to context: RequestContext) -> MHD_Result {
        switch admission {
        case .answer(let response) where context.framing == .none:
            // No body to refuse: answer on the last call instead, so the connection stays
            // usable (MHD closes every connection answered on the first call).
            context.admissionAnswer = response
            context.phase = .receiving
            return .YES
        case .answer(let response):
            return answer(context, with: response)
        case .deferred(let decide):
            context.phase = .admitting
            return suspend(context) {
                var decision = await decide()
                // A decision may itself be deferred; the server waits for a final one.
                while case .deferred(let next) = decision { decision = await next() }
                return .admission(decision)
            }
        case .proceed(let limit):
            // A route may ask for less than the server reads at most, never for more.
            let maxBodyBytes = min(limit ?? configuration.maxBodyBytes, configuration.maxBodyBytes)
            context.maxBodyBytes = maxBodyBytes
            context.phase = .receiving
            switch context.framing {
            case .none:
                return .YES
            case .length(let declared) where declared > maxBodyBytes:
                context.rejection = .payloadTooLarge(limit: maxBodyBytes)
                // A client waiting for `100 Continue` is spared the upload; one that sends at
                // once gets its 413 after the body was read and discarded (MHD 0.9.75 cannot
                // answer in the middle of it, and an answer before it is lost to the reset).
                guard let head = context.head, FramingCheck.expectsContinue(head.headers) else {
                    startBodyDeadline(context)
                    return .YES
                }
                return refuseNow(context, .payloadTooLarge(limit: maxBodyBytes))
            case .length(let declared):
                guard bodyBudget.reserve(declared, for: context) else { return refuseNow(context, .bodyBufferFull) }
                if declared > 0 { startBodyDeadline(context) }
                return .YES
            case .chunked:
                startBodyDeadline(context)
                return .YES
            }
        }
    }

    /// The call after a deferred admission resumed the connection.
    private func admissionDecided(_ context: RequestContext) -> MHD_Result {
        _ = registry.withLock { $0.waiting.removeValue(forKey: context.id) }
        switch context.takeOutcome() {
        case .admission(let admission)?:
            return apply(admission, to: context)
        case .response(let response)?:  // shutdown answered for it
            return answer(context, with: response)
        case nil:
            return answer(context, with: HTTPResponse(status: 500))
        }
    }

    private func startBodyDeadline(_ context: RequestContext) {
        PeerInfo.of(context.connection.pointer)?.phase = .body(since: .now, context: context)
    }

    private func receiveBody(_ piece: UnsafeRawBufferPointer, into context: RequestContext) -> MHD_Result {
        if context.rejection != nil {
            context.discardedBytes += piece.count
            guard context.discardedBytes <= configuration.maxDiscardBytes else {
                // Past the discard budget: give up on the exchange (MHD refuses a response in
                // the middle of a body, so this closes the connection).
                return .NO
            }
            return .YES
        }
        if context.body.count + piece.count > context.maxBodyBytes {
            context.rejection = .payloadTooLarge(limit: context.maxBodyBytes)
            context.discardedBytes = context.body.count + piece.count
            context.body = []
            bodyBudget.release(context)
            return .YES
        }
        if case .chunked = context.framing, !bodyBudget.reserve(piece.count, for: context) {
            context.rejection = .bodyBufferFull
            context.discardedBytes = context.body.count + piece.count
            context.body = []
            bodyBudget.release(context)
            return .YES
        }
        context.body.append(contentsOf: piece)
        return .YES
    }

    private func finishRequest(_ context: RequestContext) -> MHD_Result {
        PeerInfo.of(context.connection.pointer)?.phase = .busy
        bodyBudget.release(context)
        if let response = context.admissionAnswer {
            context.admissionAnswer = nil
            return answer(context, with: response)
        }
        if let rejection = context.rejection {
            return answer(context, with: rejectionResponse(rejection, context))
        }
        guard let head = context.head else { return .NO }
        let request = HTTPRequest(head: head, body: context.body)
        context.body = []
        switch handler.handle(request) {
        case .immediate(let response):
            return answer(context, with: response)
        case .deferred(let work):
            context.phase = .waiting
            return suspend(context) { .response(await work()) }
        }
    }

    /// Suspends the connection and queues the work; the task that runs it resumes the connection.
    /// Suspending first guarantees the resume can never come before the suspend.
    private func suspend(_ context: RequestContext, until work: @escaping @Sendable () async -> RequestContext.Outcome) -> MHD_Result {
        context.rearmHandoff()
        registry.withLock { $0.waiting[context.id] = context }
        context.connection.suspend()
        let job = DeferredJob { context.complete(with: await work()) }
        if case .terminated = jobSink.yield(job) {
            context.complete(with: rejectionResponse(.shuttingDown, context))
        }
        return .YES
    }

    /// Answers a refusal at once, on the first call: MHD then closes the connection after the
    /// response without reading the body (and without `100 Continue`).
    private func refuseNow(_ context: RequestContext, _ rejection: HTTPRejection) -> MHD_Result {
        context.rejection = rejection
        return answer(context, with: rejectionResponse(rejection, context))
    }

    private func rejectionResponse(_ rejection: HTTPRejection, _ context: RequestContext) -> HTTPResponse {
        let head = context.head ?? HTTPRequestHead(method: "", path: context.rawPath, receivedAt: context.receivedAt,
                                                   rawPath: context.rawPath)
        return handler.response(for: rejection, head: head)
    }

    /// Queues `response` on the connection (libmicrohttpd copies what it needs).
    private func answer(_ context: RequestContext, with response: HTTPResponse) -> MHD_Result {
        context.phase = .answered
        bodyBudget.release(context)
        let closing = draining.load(ordering: .relaxed)
        switch response.body {
        case .bytes(let bytes):
            return MHDResponse.queueBytes(bytes, status: response.status, headers: response.headers,
                                          close: closing, on: context.connection.pointer)
        case .stream where context.isHead:
            return MHDResponse.queueHeadOfStream(status: response.status, headers: response.headers,
                                                 on: context.connection.pointer)
        case .stream(let start):
            let stream = ResponseStream(connection: context.connection,
                                        maxBufferedBytes: configuration.maxBufferedStreamBytes,
                                        id: makeID(), requestCut: { [weak self] id in self?.requestCut(of: id) })
            registry.withLock { $0.streams[stream.id] = stream }
            let queued = MHDResponse.queueStream(stream, status: response.status, headers: response.headers,
                                                 core: self, on: context.connection.pointer)
            if queued == .YES { start(stream) }
            return queued
        }
    }

    // MARK: - Streams aborted while sending

    private func requestCut(of stream: Int) {
        registry.withLock { $0.cuts.append(stream) }
        waker.wake()
    }

    /// Shuts down the sockets of streams aborted while libmicrohttpd was waiting to send (too
    /// slow a reader, a shutdown): it then reads the error and closes the connection, which ends
    /// the stream. On the event-loop thread, where a stream still registered has a live
    /// connection (MHD releases it on this thread).
    func cutAbortedStreams() {
        let cut: [ResponseStream] = registry.withLock { registry in
            defer { registry.cuts.removeAll() }
            return registry.cuts.compactMap { registry.streams[$0] }
        }
        for stream in cut {
            if let peer = PeerInfo.of(stream.connection.pointer), peer.socket >= 0 { cmhd_shutdown_socket(peer.socket) }
        }
    }

    // MARK: - Deadlines

    /// Cuts the connections past their header or body deadline; called by the event loop after
    /// each run of MHD (it checks a few times a second at most).
    func enforceDeadlines() {
        deadlines.check(now: .now) { peer, phase in
            if case .body(_, let context) = phase, context.phase == .receiving {
                bodyDeadlinePassed(context, on: peer)
            }
            cmhd_shutdown_socket(peer.socket)
        }
    }

    /// A body that missed its deadline: the handler's 408, written to the socket directly
    /// because MHD 0.9.75 accepts no response while a body is arriving. The socket is shut down
    /// right after, so MHD closes the connection and never writes to it again.
    private func bodyDeadlinePassed(_ context: RequestContext, on peer: PeerInfo) {
        context.phase = .answered
        context.cutOff = true
        // A body already refused (413 while discarding) keeps its refusal; otherwise 408.
        let rejection = context.rejection ?? .requestTimeout
        context.rejection = rejection
        bodyBudget.release(context)
        context.body = []
        let bytes = MHDResponse.serialized(rejectionResponse(rejection, context))
        _ = bytes.withUnsafeBytes { cmhd_send_nonblocking(peer.socket, $0.baseAddress, $0.count) }
    }

    // MARK: - Completion notices

    /// MHD is done with a request (answered, or the connection failed or closed). On keep-alive
    /// the connection now waits for the next request line, under the header deadline again.
    func requestCompleted(_ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>, on connection: OpaquePointer?) {
        if let connection, let peer = PeerInfo.of(connection) { peer.phase = .headers(since: .now) }
        guard let stored = slot.pointee else { return }
        slot.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(stored).takeRetainedValue()
        switch context.phase {
        case .waiting, .admitting:
            // The client went away while deferred work ran; its answer has nowhere to go.
            _ = registry.withLock { $0.waiting.removeValue(forKey: context.id) }
        default:
            break
        }
        bodyBudget.release(context)
        requestsInFlight.subtract(1, ordering: .relaxed)
    }

    func streamReleased(_ stream: ResponseStream) {
        _ = registry.withLock { $0.streams.removeValue(forKey: stream.id) }
        stream.terminated()
    }

    // MARK: - Shutdown

    /// Ends every open stream (after what is queued) so clients reconnect elsewhere.
    func finishStreams() {
        let streams = registry.withLock { Array($0.streams.values) }
        for stream in streams { stream.finish() }
    }

    /// Answers every request still waiting for deferred work with 503, and aborts every stream.
    func abandonOutstandingWork() {
        let (waiting, streams) = registry.withLock { ($0.waiting.values.map { $0 }, Array($0.streams.values)) }
        for context in waiting { context.complete(with: rejectionResponse(.shuttingDown, context)) }
        for stream in streams { stream.abort(.serverShutdown) }
    }
}
