import Synchronization

/// An HTTP/1.1 server on libmicrohttpd that knows nothing of the application it serves.
///
/// ```swift
/// let server = HTTPServer(configuration: ServerConfiguration(port: 0), handler: MyHandler())
/// try server.start()                 // binds; `server.port` is now the real port
/// ...
/// await server.shutdown(gracePeriod: .seconds(5))
/// ```
///
/// One event-loop thread serves every connection (see `MHD/EventLoop.swift`). Handlers admit a
/// request from its header fields before its body is read (``HTTPHandler/admit(_:)``), then answer
/// through a one-shot ``HTTPResponder``, at once or from the thread that did the work; the server
/// has no task or queue of its own. Streamed bodies cost no CPU while idle. Everything refused
/// below the application (framing, limits, deadlines, shutdown, and the refusals libmicrohttpd
/// makes itself) is answered through ``HTTPHandler/response(for:head:)``; what is left unanswered
/// is a connection beyond the connection limits, one past its header deadline, and a library
/// refusal that cannot be told apart from another at the same instant
/// (``unattributedLibraryRefusals``).
public final class HTTPServer: Sendable {
    private enum Lifecycle {
        case idle
        case running(EventLoop)
        case stopping
        case stopped
    }

    public let configuration: ServerConfiguration
    let core: ServerCore
    private let lifecycle = Mutex(Lifecycle.idle)
    private let boundPort = Atomic<Int>(0)
    /// How to read the loop thread's id, in a box: a closure kept directly in a `Mutex` gains
    /// two reabstraction thunks at every `withLock { $0 }`, without bound (see `WALSyncer`).
    private final class ThreadIDReader: Sendable {
        let read: @Sendable () -> Int32
        init(_ read: @escaping @Sendable () -> Int32) { self.read = read }
    }
    private let loopThreadID = Mutex<ThreadIDReader?>(nil)

    /// - Parameter messageLog: receives libmicrohttpd's own messages (errors such as a client
    ///   that went away mid-answer); by default they are dropped.
    public init(configuration: ServerConfiguration, handler: some HTTPHandler,
                messageLog: (@Sendable (String) -> Void)? = nil) {
        self.configuration = configuration
        self.core = ServerCore(configuration: configuration, handler: handler, messageLog: messageLog)
    }

    /// Binds the listening socket and starts serving.
    public func start() throws(HTTPServerError) {
        try lifecycle.withLock { (lifecycle) throws(HTTPServerError) in
            guard case .idle = lifecycle else { throw .alreadyStarted }
            let loop = try EventLoop(core: core)
            loop.start()
            boundPort.store(loop.port, ordering: .releasing)
            loopThreadID.withLock { $0 = ThreadIDReader { loop.threadID.load(ordering: .acquiring) } }
            lifecycle = .running(loop)
        }
    }

    /// The port the server listens on; 0 before ``start()``.
    public var port: Int { boundPort.load(ordering: .acquiring) }


    /// Stops gracefully: stops accepting connections, lets requests in flight finish, ends every
    /// stream after what it has queued, and closes the server. Requests still unanswered after
    /// `gracePeriod` get 503. Returns once the listening socket and every connection are closed.
    public func shutdown(gracePeriod: Duration = .seconds(5)) async {
        guard let loop = beginStopping() else { return }
        loop.quiesce()
        core.finishStreams()
        let clock = ContinuousClock()
        let deadline = clock.now + gracePeriod
        while !isIdle, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if !isIdle {
            core.abandonOutstandingWork()
            let lastChance = clock.now + .seconds(1)
            while !isIdle, clock.now < lastChance {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        loop.stop()
        lifecycle.withLock { $0 = .stopped }
    }

    /// Stops at once, without the grace period: what ``shutdown(gracePeriod:)`` ends with, when
    /// a request may still have arrived after its last look. For tests of that moment.
    func stopWithoutGrace() {
        guard let loop = beginStopping() else { return }
        loop.stop()
        lifecycle.withLock { $0 = .stopped }
    }

    /// The running loop, now stopping (answers carry `Connection: close` from here on); `nil`
    /// when the server is not running.
    private func beginStopping() -> EventLoop? {
        let loop: EventLoop? = lifecycle.withLock { lifecycle in
            guard case .running(let loop) = lifecycle else { return nil }
            lifecycle = .stopping
            return loop
        }
        if loop != nil { core.draining.store(true, ordering: .releasing) }
        return loop
    }

    private var isIdle: Bool {
        core.requestsInFlight.load(ordering: .acquiring) == 0 && core.openStreamCount == 0
    }

    /// The kernel thread id of the event-loop thread, for measuring its CPU use; `nil` before start.
    public var eventLoopThreadID: Int32? {
        guard let reader = loopThreadID.withLock({ $0 }) else { return nil }
        let id = reader.read()
        return id == 0 ? nil : id
    }

    /// Answers so far that a handler made on another thread than the event loop's (a store's
    /// writer or reader, a task); those made on the loop while the handler ran are not counted.
    public var answersMadeOffTheLoop: Int { core.answerTally.offLoop.load(ordering: .relaxed) }
    /// Pieces of streamed bodies (events, heartbeats) sent straight to the client while the
    /// stream's connection was suspended, without waking the event loop (``SuspendedStreamSocket``).
    public var directStreamSends: Int { core.directSends.count.load(ordering: .relaxed) }
    /// Open TCP connections right now.
    public var openConnections: Int { core.openConnections.load(ordering: .relaxed) }
    /// Requests received and not yet completed (including deferred ones).
    public var requestsInFlight: Int { core.requestsInFlight.load(ordering: .relaxed) }
    /// Streamed responses still open.
    public var openStreams: Int { core.openStreamCount }
    /// Bytes request bodies being received hold right now (reserved for declared lengths),
    /// against ``ServerConfiguration/maxBufferedBodyBytes``.
    public var bufferedBodyBytes: Int { core.bodyBudget.held.load(ordering: .relaxed) }
    /// Large answers held until their clients read them (``AnswerBudget``).
    public var answerBudget: AnswerBudget { core.answerBudget }
    /// What streams hold unsent, and how often the bounds on it replaced what they held
    /// (``StreamBudget``).
    public var streamBudget: StreamBudget { core.streamBudget }
    /// Refusals libmicrohttpd made itself that the server could not tie to one connection, so
    /// that MHD's own HTML page went out (two clients refused at the same instant).
    public var unattributedLibraryRefusals: Int { core.unattributedLibraryRefusals.load(ordering: .relaxed) }
}
