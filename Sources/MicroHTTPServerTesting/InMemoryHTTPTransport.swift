public import MicroHTTPServer
import Synchronization

/// Drives an ``HTTPHandler`` without a socket, for tests (as Hummingbird's test mode does):
/// a request given as method, target, header fields and body bytes goes through the same
/// request-phase machine as on the socket server (`RequestPhases`), its steps carried out by the
/// same executor (`RequestStepExecutor`), and its answer comes back as status, header fields and
/// body, or as a stream to read. A library of its own (`MicroHTTPServerTesting`), so that the
/// server binary does not carry it.
///
/// ```swift
/// let transport = InMemoryHTTPTransport(handler: api, configuration: ServerConfiguration())
/// let response = try await transport.execute(.init(method: "GET", target: "/healthz", headers: [(HeaderName.host, "localhost")]))
/// ```
///
/// What it shares with the socket server, in order:
/// - the target's checks (`TargetInspection`: length, number of arguments, `%00`, whitespace),
///   the size and shape of the head and `Host` (`RequestPhases.transportRefusal`), then the
///   framing (`FramingCheck`): each refusal answered through
///   ``HTTPHandler/response(for:head:)``;
/// - the path and query arguments decoded as libmicrohttpd decodes them (``PercentDecoding``,
///   the raw path kept as sent);
/// - admission, once, including ``HTTPAdmission/later(_:)`` (awaited through the same one-shot
///   the socket server suspends a connection on, a 503 once the transport is closed), the route's body limit (413 for a declared or
///   delivered body over it, before or after the body as on the socket), the server-wide body
///   budget (``ServerConfiguration/maxBufferedBodyBytes``);
/// - ``HTTPHandler/handle(_:responder:)``, the answer awaited through the one-shot responder,
///   fulfilled on any thread, now or later;
/// - the body as libmicrohttpd frames it: `Content-Length` of a byte body
///   (``Response/contentLength``), none for a 304 built with bytes, the representation's for
///   ``HTTPBody/omitted(representationLength:)``, no body for `HEAD` (and a stream's `start`
///   never runs for one);
/// - a streamed body read as the socket server reads it (``ResponseStream``'s reader), so
///   ``Stream/next(timeout:)`` gets what the handler wrote, in order, and ``Stream/cancel()``
///   is a client that left.
///
/// Like the event loop, it calls the handler (admission, `handle`, a later admission's
/// closure, a stream's `start`) from one request at a time, never two at once, each call of
/// the executor inside a turn (``HTTPHandler/turnBegan()``, ``HTTPHandler/turnEnded()``), as
/// libmicrohttpd's calls run inside a turn of the event loop; the caller's thread runs it.
///
/// What it does **not** cover, and socket tests must (`Tests/MicroHTTPServerTests`, and the
/// API suites kept on sockets):
/// - socket framing: the request line and header section as bytes (obs-folds, whitespace before
///   a colon, bare LFs, two `Host` lines that MHD merges...), chunked request bodies (a body
///   is handed over whole; `Transfer-Encoding: chunked` only says so), a `Content-Length` that
///   disagrees with the bytes sent, `Expect: 100-continue` and the interim 100, pipelining;
/// - libmicrohttpd's own limits and refusals (`MHDWorkarounds.answerLibraryRefusals`): its
///   431 and 414 for a head beyond the connection's memory pool
///   (``ServerConfiguration/connectionMemoryBytes``, `MHDWorkarounds.keepRoomForAnswer`), its
///   `Cookie` parsing, its trimming of field values (the fields are taken as given), its
///   `Date` field;
/// - connections: keep-alive, `Connection: close` after an unread body or during shutdown,
///   connection limits, the header, body and idle deadlines, a stalled reader's cut
///   (`MHDWorkarounds.cutStalledStreams`), suspend and resume of a real connection;
/// - the head size is measured on the request serialized plainly (`name: value` lines), which
///   is what a client like `TestConnection` sends, not what any client sends.
public final class InMemoryHTTPTransport: Sendable {
    /// One request, as a client would send it.
    public struct Request: Sendable {
        public var method: String
        /// The request target as sent: the path and query, still percent-encoded.
        public var target: String
        /// The header fields, in order. A body without `Content-Length` or
        /// `Transfer-Encoding` gets a `Content-Length`, as a client adds one.
        public var headers: HTTPHeaders
        public var body: [UInt8]
        public var httpVersion: String
        public var remoteAddress: String?

        public init(method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
                    httpVersion: String = "HTTP/1.1", remoteAddress: String? = "127.0.0.1") {
            self.method = method
            self.target = target
            self.headers = headers
            self.body = body
            self.httpVersion = httpVersion
            self.remoteAddress = remoteAddress
        }
    }

    /// The answer to one request.
    public struct Response: Sendable {
        public var status: Int
        /// The header fields exactly as the handler set them (libmicrohttpd adds `Date`, the
        /// framing and, at times, `Connection: close`; see ``framedHeaders``).
        public var headers: HTTPHeaders
        /// The whole body of a byte body (none for `HEAD`, a 304 or a stream).
        public var body: [UInt8]
        /// The `Content-Length` the socket server sends with this answer, if any.
        public var contentLength: Int?
        /// The body of a streamed answer (not for `HEAD`), to read.
        public var stream: Stream?

        /// ``headers`` plus the framing field the socket server adds: `Content-Length`, or
        /// `Transfer-Encoding: chunked` for a stream.
        public var framedHeaders: HTTPHeaders {
            var fields = headers
            if let contentLength { fields.add(HeaderName.contentLength, String(contentLength)) }
            if stream != nil { fields.add(HeaderName.transferEncoding, "chunked") }
            return fields
        }
    }

    /// Why a request got no answer.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The socket server would close the connection without an answer (`RequestPhases.Step.abandon`),
        /// or a stream was cut (too slow a reader, a shutdown).
        case closedWithoutAnswer
        /// No answer (or stream bytes) within the time allowed.
        case timedOut

        public var description: String {
            switch self {
            case .closedWithoutAnswer: "closed without an answer"
            case .timedOut: "timed out waiting for the handler"
            }
        }
    }

    public let configuration: ServerConfiguration
    fileprivate let handler: any HTTPHandler
    private let limits: RequestPhases.Limits
    fileprivate let bodyBudget: BodyBudget
    /// What streams hold unsent, as ``HTTPServer/streamBudget``.
    public let streamBudget: StreamBudget
    /// Held while the handler runs: one request at a time meets it, as on the event loop.
    private let loop = Mutex(())
    private let streams = Mutex<[Int: ResponseStream]>([:])
    private let nextStreamID = Atomic<Int>(0)
    /// Set by ``close()``: requests reaching their handler or admission get 503 from then on.
    fileprivate let closing = Atomic<Bool>(false)

    public init(handler: some HTTPHandler, configuration: ServerConfiguration = ServerConfiguration(port: 0)) {
        self.handler = handler
        self.configuration = configuration
        limits = RequestPhases.Limits(configuration)
        bodyBudget = BodyBudget(limit: configuration.maxBufferedBodyBytes)
        streamBudget = StreamBudget(limit: configuration.maxBufferedStreamBytesTotal, perStreamLimit: configuration.maxBufferedStreamBytes)
    }

    /// Streamed answers not yet ended.
    public var openStreams: Int { streams.withLock { $0.count } }

    /// Bytes request bodies hold right now, as ``HTTPServer/bufferedBodyBytes``.
    public var bufferedBodyBytes: Int { bodyBudget.heldBytes }

    /// Sends `method` `target` and awaits the answer.
    public func execute(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
        timeout: Duration = .seconds(10)
    ) async throws(Failure) -> Response {
        try await execute(Request(method: method, target: target, headers: HTTPHeaders(headers), body: body), timeout: timeout)
    }

    /// Carries `request` through the request phases and awaits its answer: at most `timeout`
    /// for each wait (a later admission, a later answer).
    public func execute(_ request: Request, timeout: Duration = .seconds(10)) async throws(Failure) -> Response {
        let receivedAt = ContinuousClock.now
        var headers = request.headers
        if !request.body.isEmpty, !headers.contains(HeaderName.contentLength), !headers.contains(HeaderName.transferEncoding) {
            headers.add(HeaderName.contentLength, String(request.body.count))
        }
        let target = Array(request.target.utf8)
        let inspection = target.withUnsafeBytes {
            TargetInspection.inspect($0, maxTargetBytes: configuration.maxTargetBytes,
                                     maxQueryArguments: configuration.maxQueryArguments,
                                     workarounds: configuration.workarounds)
        }
        let question = target.firstIndex(of: UInt8(ascii: "?"))
        let query = inspection.rejection == nil ? question.map { Self.queryArguments(target[($0 + 1)...]) } ?? [] : []
        let head = HTTPRequestHead(
            method: request.method, path: PercentDecoding.decodeAsLibrary(target[..<(question ?? target.count)], plusAsSpace: false),
            query: query, headers: headers, remoteAddress: request.remoteAddress, receivedAt: receivedAt,
            rawPath: inspection.rawPath)
        let refusal = RequestPhases.transportRefusal(
            target: inspection.rejection, headerBytes: { Self.headerBytes(request, headers: headers) },
            headerSectionIsWellFormed: { HeaderSectionShape.isWellFormed(headers) },
            headers: headers, httpVersion: { request.httpVersion }, configuration: configuration)

        let exchange = Exchange(head: head, limits: limits)
        defer { bodyBudget.release(holding: &exchange.heldBodyBytes) }
        let steps = RequestStepExecutor(Steps(transport: self))
        var next = inTurn { steps.headersArrived(head, refusal: refusal, for: exchange) }
        var bodyDelivered = false
        while true {
            switch next {
            case .answered(let response):
                return response
            case .closedWithoutAnswer:
                throw .closedWithoutAnswer
            case .readBody:
                // In `receiving`: the body, whole, then its end.
                if !bodyDelivered, !request.body.isEmpty {
                    bodyDelivered = true
                    next = inTurn { steps.bodyArrived(request.body, for: exchange) }
                } else {
                    bodyDelivered = true
                    bodyBudget.release(holding: &exchange.heldBodyBytes)
                    next = inTurn { steps.bodyComplete(for: exchange) }
                }
            case .waiting:
                _ = await exchange.wake.wait(timeout: timeout)
                let came = inTurn { steps.admissionCame(for: exchange) ?? steps.answerCame(for: exchange) }
                guard let came else {
                    exchange.awaitedAdmission?.drop()
                    exchange.awaitedResponse?.drop()
                    throw .timedOut
                }
                next = came
            }
        }
    }

    /// Runs `body` as one turn of the event loop: one request at a time meets the handler, and
    /// the handler may hold what the turn started until it ends, as around a run of
    /// libmicrohttpd on the socket server.
    private func inTurn<Value>(_ body: () -> Value) -> Value {
        loop.withLock { _ in
            handler.turnBegan()
            defer { handler.turnEnded() }
            return body()
        }
    }

    /// Ends every open stream, as a server shutting down does: after what is queued if
    /// `gracefully`, else cut at once. Requests that reach their handler or admission from now
    /// on are answered 503 (``HTTPRejection/shuttingDown``).
    public func close(gracefully: Bool = true) {
        closing.store(true, ordering: .releasing)
        let open = streams.withLock { Array($0.values) }
        for stream in open {
            if gracefully { stream.finish() } else { stream.abort(.serverShutdown) }
        }
    }

    // MARK: - The answer

    /// The answer as libmicrohttpd frames it (see `MHDResponse`).
    fileprivate func answer(_ response: HTTPResponse, _ head: HTTPRequestHead) -> Response {
        let isHead = head.method == "HEAD"
        var answer = Response(status: response.status, headers: response.headers, body: [], contentLength: nil, stream: nil)
        switch response.body {
        case .bytes where response.status == 304:
            break
        case .omitted(let length):
            answer.contentLength = length
        case .bytes(let bytes):
            answer.contentLength = bytes.count
            if !isHead { answer.body = bytes }
        case .stream where isHead && configuration.workarounds.contains(.headOfStreamUnframed):
            break
        case .stream(let start):
            let id = nextStreamID.wrappingAdd(1, ordering: .relaxed).newValue
            let link = StreamLink()
            let stream = ResponseStream(connection: link, maxBufferedBytes: configuration.maxBufferedStreamBytes,
                                        budget: streamBudget, id: id)
            streams.withLock { $0[id] = stream }
            answer.stream = Stream(stream: stream, link: link, released: { [weak self] in
                _ = self?.streams.withLock { $0.removeValue(forKey: id) }
            })
            if !isHead { start(stream) }
        }
        return answer
    }

    // MARK: - The request, as libmicrohttpd reads it

    /// The query arguments as libmicrohttpd 0.9.75 splits them (`MHD_parse_arguments_`): at
    /// every `&`, an empty last one dropped, a name without `=` given no value, `+` a space,
    /// each name and value decoded on its own.
    static func queryArguments(_ query: ArraySlice<UInt8>) -> [(name: String, value: String?)] {
        var arguments: [(name: String, value: String?)] = []
        var parts = query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
        if parts.last?.isEmpty == true { parts.removeLast() }
        for part in parts {
            if let equals = part.firstIndex(of: UInt8(ascii: "=")) {
                arguments.append((name: PercentDecoding.decodeAsLibrary(part[..<equals], plusAsSpace: true),
                                  value: PercentDecoding.decodeAsLibrary(part[(equals + 1)...], plusAsSpace: true)))
            } else {
                arguments.append((name: PercentDecoding.decodeAsLibrary(part, plusAsSpace: true), value: nil))
            }
        }
        return arguments
    }

    /// The size of the request line and header section as a plain client sends them.
    static func headerBytes(_ request: Request, headers: HTTPHeaders) -> Int {
        var size = request.method.utf8.count + 1 + request.target.utf8.count + 1 + request.httpVersion.utf8.count + 2
        for field in headers { size += field.name.utf8.count + 2 + field.value.utf8.count + 2 }
        return size + 2
    }
}

// MARK: - Streams

extension InMemoryHTTPTransport {
    /// The body of a streamed answer, read as the socket server reads it for its client.
    /// Dropping it (or ``cancel()``) is a client that left: the handler's stream ends
    /// (``ResponseStream/Termination/disconnected``).
    public final class Stream: Sendable {
        private let stream: ResponseStream
        private let link: StreamLink
        private let released: @Sendable () -> Void
        private let ended = Atomic<Bool>(false)
        /// Why the stream ended, once it has.
        private let termination = Mutex<ResponseStream.Termination?>(nil)

        init(stream: ResponseStream, link: StreamLink, released: @escaping @Sendable () -> Void) {
            self.stream = stream
            self.link = link
            self.released = released
            stream.onTermination { [weak self] reason in self?.termination.withLock { $0 = reason } }
        }

        deinit { release() }

        /// The bytes written since the last call (waiting up to `timeout` for some); `nil`
        /// once the handler finished the stream and everything was read. Throws
        /// ``Failure/closedWithoutAnswer`` when the stream was cut (too slow a reader, a
        /// shutdown without grace), ``Failure/timedOut`` when nothing came in time.
        public func next(timeout: Duration = .seconds(10)) async throws(Failure) -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                guard !ended.load(ordering: .acquiring) else { return nil }
                let result = buffer.withUnsafeMutableBytes { stream.read(into: $0) }
                switch result {
                case .bytes(let count):
                    buffer.removeSubrange(count...)
                    return buffer
                case .endOfStream:
                    release()
                    return nil
                case .abort:
                    release()
                    throw .closedWithoutAnswer
                case .suspended:
                    guard await link.wake.wait(timeout: timeout) else { throw .timedOut }
                }
            }
        }

        /// Text read until it contains `marker` (all of it, from the previous call on).
        public func text(until marker: String, timeout: Duration = .seconds(10)) async throws(Failure) -> String {
            var text = ""
            while !text.contains(marker) {
                guard let bytes = try await next(timeout: timeout) else { throw .closedWithoutAnswer }
                text += String(decoding: bytes, as: UTF8.self)
            }
            return text
        }

        /// The client leaves: the stream ends for the handler, as when libmicrohttpd releases
        /// the response of a closed connection.
        public func cancel() { release() }

        /// How the stream ended, once it has (as the handler's ``ResponseStream/onTermination(_:)`` saw it).
        public var endedAs: ResponseStream.Termination? { termination.withLock { $0 } }

        private func release() {
            guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
            released()
            stream.terminated()
        }
    }

    /// What a stream suspends while empty: the reader's wake-up.
    final class StreamLink: StreamConnection {
        let wake = Wake()
        func suspend() { wake.reset() }
        func resume() { wake.signal() }
    }

    /// One wake-up awaited by one task at a time, with a deadline; a signal before the wait is kept.
    final class Wake: Sendable {
        private struct State {
            var signalled = false
            var waiter: CheckedContinuation<Bool, Never>?
            /// Which wait the deadline timers belong to, and the last one whose deadline passed
            /// before it began to wait.
            var generation = 0
            var expired = -1
        }

        private let state = Mutex(State())

        func signal() {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let waiter = state.waiter else {
                    state.signalled = true
                    return nil
                }
                state.waiter = nil
                return waiter
            }
            waiter?.resume(returning: true)
        }

        func reset() { state.withLock { $0.signalled = false } }

        /// `true` once signalled, `false` after `timeout`.
        func wait(timeout: Duration) async -> Bool {
            let generation = state.withLock { state in
                state.generation += 1
                return state.generation
            }
            let timer = Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.expire(generation)
            }
            defer { timer.cancel() }
            return await withCheckedContinuation { continuation in
                let outcome = state.withLock { state -> Bool? in
                    if state.signalled {
                        state.signalled = false
                        return true
                    }
                    if state.expired == generation { return false }
                    state.waiter = continuation
                    return nil
                }
                if let outcome { continuation.resume(returning: outcome) }
            }
        }

        private func expire(_ generation: Int) {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard state.generation == generation else { return nil }
                guard let waiter = state.waiter else {
                    state.expired = generation
                    return nil
                }
                state.waiter = nil
                return waiter
            }
            waiter?.resume(returning: false)
        }
    }
}

// MARK: - The steps, in memory

extension InMemoryHTTPTransport {
    /// One request in memory: what the socket server keeps in its request context.
    fileprivate final class Exchange: RequestExchange {
        var phases: RequestPhases
        var awaitedAdmission: OneShot<HTTPAdmission>?
        var awaitedResponse: OneShot<HTTPResponse>?
        /// The head as built from the request, before the machine has it.
        let head: HTTPRequestHead
        /// Bytes of the body budget this request holds.
        var heldBodyBytes = 0
        /// Signalled when an awaited admission or answer came.
        let wake = Wake()

        init(head: HTTPRequestHead, limits: RequestPhases.Limits) {
            self.head = head
            phases = RequestPhases(limits: limits)
        }

        var headForRefusal: HTTPRequestHead { phases.head ?? head }
    }

    /// What the executor's steps do in memory: where the socket server reads, suspends or
    /// queues, the transport hands back what to do next.
    fileprivate enum Next {
        case readBody
        case answered(Response)
        case closedWithoutAnswer
        case waiting
    }

    fileprivate struct Steps: StepTransport {
        let transport: InMemoryHTTPTransport

        var handler: any HTTPHandler { transport.handler }
        var isClosing: Bool { transport.closing.load(ordering: .acquiring) }

        func reserveBody(_ bytes: Int, for exchange: Exchange) -> Bool {
            transport.bodyBudget.reserve(bytes, holding: &exchange.heldBodyBytes)
        }

        func readOn(_ exchange: Exchange) -> Next { .readBody }

        func queue(_ response: HTTPResponse, for exchange: Exchange) -> Next {
            exchange.phases.answered()
            return .answered(transport.answer(response, exchange.head))
        }

        func cut(_ exchange: Exchange) -> Next { .closedWithoutAnswer }

        /// Nothing to suspend: the caller awaits the exchange's wake-up instead.
        func suspend(_ exchange: Exchange) {}

        func wakeUp(_ exchange: Exchange) -> @Sendable () -> Void {
            let wake = exchange.wake
            return { wake.signal() }
        }

        func waiting(_ exchange: Exchange) -> Next { .waiting }

        func stoppedWaiting(_ exchange: Exchange) {}

        func responder(for shot: OneShot<HTTPResponse>, exchange: Exchange) -> HTTPResponder {
            HTTPResponder(shot: shot, receivedAt: exchange.head.receivedAt, tally: nil)
        }
    }
}
