import CMicroHTTPD
import Glibc
import Synchronization

/// The socket server's state: what libmicrohttpd's callbacks reach through their `cls`
/// pointer. Its jobs live in files of their own: MHD's calls for a request
/// (`ServerCore+RequestCallbacks.swift`), the steps of ``RequestPhases`` carried out with MHD's
/// calls (`ServerCore+SocketSteps.swift`), the deadlines, completion, shutdown, and each
/// libmicrohttpd workaround under `MHD/Workarounds/`.
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
    let registry = Mutex(SuspensionRegistry())
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
}
