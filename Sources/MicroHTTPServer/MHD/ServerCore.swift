import CMicroHTTPD
import Synchronization

/// The state libmicrohttpd's callbacks reach through their `cls` pointer: the handler, the
/// limits, the queue of deferred work and the registry of suspended requests and open streams.
///
/// ``HTTPServer`` owns it and keeps it alive until the daemon is stopped, so callbacks take it
/// unretained.
final class ServerCore: Sendable {
    /// A deferred request: its context and the work that produces its response.
    struct DeferredJob: Sendable {
        let context: RequestContext
        let work: @Sendable () async -> HTTPResponse
    }

    struct Registry: ~Copyable {
        var waiting: [Int: RequestContext] = [:]
        var streams: [Int: ResponseStream] = [:]
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

    init(configuration: ServerConfiguration, handler: any HTTPHandler, waker: LoopWaker,
         messageLog: (@Sendable (String) -> Void)?) {
        self.configuration = configuration
        self.handler = handler
        self.waker = waker
        self.messageLog = messageLog
        (jobs, jobSink) = AsyncStream.makeStream(of: DeferredJob.self, bufferingPolicy: .unbounded)
    }

    func makeID() -> Int { nextID.wrappingAdd(1, ordering: .relaxed).newValue }

    var openStreamCount: Int { registry.withLock { $0.streams.count } }

    // MARK: - Access handler

    /// One call of libmicrohttpd's access handler (see `Callbacks.swift`): the first call brings
    /// the headers, each further call a piece of the body, the last one none. Answering before
    /// the last call makes MHD close the connection, so only rejections that must close it do.
    func handleCall(
        connection: OpaquePointer,
        url: UnsafePointer<CChar>,
        method: UnsafePointer<CChar>,
        uploadData: UnsafePointer<CChar>?,
        uploadDataSize: UnsafeMutablePointer<Int>,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let stored = slot.pointee else {
            return beginRequest(connection: connection, url: url, method: method, slot: slot)
        }
        let context = Unmanaged<RequestContext>.fromOpaque(stored).takeUnretainedValue()
        if uploadDataSize.pointee > 0 {
            let size = uploadDataSize.pointee
            uploadDataSize.pointee = 0
            return receiveBody(UnsafeRawBufferPointer(start: uploadData, count: size), into: context)
        }
        return finishRequest(context)
    }

    private func beginRequest(
        connection: OpaquePointer,
        url: UnsafePointer<CChar>,
        method: UnsafePointer<CChar>,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let context = RequestContext(
            connection: ConnectionHandle(pointer: connection, waker: waker),
            id: makeID(),
            method: String(cString: method),
            path: String(cString: url),
            headers: MHDValues.headers(of: connection)
        )
        slot.pointee = Unmanaged.passRetained(context).toOpaque()
        requestsInFlight.add(1, ordering: .relaxed)

        switch FramingCheck.inspect(context.headers, maxBodyBytes: configuration.maxBodyBytes) {
        case .acceptable:
            return .YES
        case .reject(let rejection, let immediately):
            context.rejection = rejection
            // Answering now makes MHD close the connection after the response, which is what a
            // framing error needs, and spares a client that waits for `100 Continue` the upload.
            return immediately ? answer(context, with: rejectionResponse(rejection, context)) : .YES
        }
    }

    private func receiveBody(_ piece: UnsafeRawBufferPointer, into context: RequestContext) -> MHD_Result {
        if context.rejection != nil {
            context.discardedBytes += piece.count
            guard context.discardedBytes <= configuration.maxDiscardBytes else {
                // Past the discard budget: answer now and let MHD close the connection.
                return answer(context, with: rejectionResponse(context.rejection ?? .payloadTooLarge(limit: 0), context))
            }
            return .YES
        }
        if context.body.count + piece.count > configuration.maxBodyBytes {
            context.rejection = .payloadTooLarge(limit: configuration.maxBodyBytes)
            context.discardedBytes = context.body.count + piece.count
            context.body = []
            return .YES
        }
        context.body.append(contentsOf: piece)
        return .YES
    }

    private func finishRequest(_ context: RequestContext) -> MHD_Result {
        switch context.phase {
        case .answered:
            return .YES
        case .waiting:
            _ = registry.withLock { $0.waiting.removeValue(forKey: context.id) }
            let response = context.takeResponse() ?? HTTPResponse(status: 500)
            return answer(context, with: response)
        case .receiving:
            if let rejection = context.rejection {
                return answer(context, with: rejectionResponse(rejection, context))
            }
            let request = HTTPRequest(
                method: context.method,
                path: context.path,
                query: MHDValues.query(of: context.connection.pointer),
                headers: context.headers,
                body: context.body,
                remoteAddress: MHDValues.remoteAddress(of: context.connection.pointer),
                receivedAt: context.receivedAt
            )
            context.body = []
            switch handler.handle(request) {
            case .immediate(let response):
                return answer(context, with: response)
            case .deferred(let work):
                return suspend(context, until: work)
            }
        }
    }

    /// Suspends the connection and queues the work; the task that runs it resumes the connection.
    /// Suspending first guarantees the resume can never come before the suspend.
    private func suspend(_ context: RequestContext, until work: @escaping @Sendable () async -> HTTPResponse) -> MHD_Result {
        context.phase = .waiting
        registry.withLock { $0.waiting[context.id] = context }
        context.connection.suspend()
        if case .terminated = jobSink.yield(DeferredJob(context: context, work: work)) {
            context.complete(with: rejectionResponse(.shuttingDown, context))
        }
        return .YES
    }

    private func rejectionResponse(_ rejection: RequestRejection, _ context: RequestContext) -> HTTPResponse {
        handler.response(for: rejection, method: context.method, path: context.path)
    }

    /// Queues `response` on the connection (libmicrohttpd copies what it needs).
    private func answer(_ context: RequestContext, with response: HTTPResponse) -> MHD_Result {
        context.phase = .answered
        let closing = draining.load(ordering: .relaxed)
        switch response.body {
        case .bytes(let bytes):
            return MHDResponse.queueBytes(bytes, status: response.status, headers: response.headers,
                                          close: closing, on: context.connection.pointer)
        case .stream(let start):
            let stream = ResponseStream(connection: context.connection,
                                        maxBufferedBytes: configuration.maxBufferedStreamBytes,
                                        id: makeID())
            registry.withLock { $0.streams[stream.id] = stream }
            let queued = MHDResponse.queueStream(stream, status: response.status, headers: response.headers,
                                                 core: self, on: context.connection.pointer)
            if queued == .YES { start(stream) }
            return queued
        }
    }

    // MARK: - Completion notices

    func requestCompleted(_ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let stored = slot.pointee else { return }
        slot.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(stored).takeRetainedValue()
        if case .waiting = context.phase {
            // The client went away while deferred work ran; its answer has nowhere to go.
            _ = registry.withLock { $0.waiting.removeValue(forKey: context.id) }
        }
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
