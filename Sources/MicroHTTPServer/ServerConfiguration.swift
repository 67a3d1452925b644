/// Where the server listens and the limits it enforces on every client.
///
/// Every limit has a default that is safe for a public listener; see the
/// configuration table of docs/operations.md for how the `navprefs` executable sets them.
public struct ServerConfiguration: Sendable, Equatable {
    /// A numeric IPv4 or IPv6 address, or a host name resolved at start.
    public var host: String
    /// 0 picks a free port; read it back from ``HTTPServer/port``.
    public var port: Int
    /// The largest request body accepted, unless ``HTTPHandler/admit(_:)`` sets a request's own
    /// limit. Larger bodies get 413: before upload when the client sent `Expect: 100-continue`,
    /// otherwise after the body was read and discarded (so that clients that write the whole
    /// body before reading still see the 413).
    public var maxBodyBytes: Int
    /// How much of an oversized body is read and discarded before the server answers 413
    /// and closes the connection instead.
    public var maxDiscardBytes: Int
    /// Open connections in all (libmicrohttpd's own default, 1020, is far too low for SSE).
    public var maxConnections: Int
    /// Open connections per client IP address, so that one address cannot lock out the others.
    public var maxConnectionsPerIP: Int
    /// Seconds a connection may stay idle before it is closed; 0 disables the timeout.
    /// Suspended connections (deferred work, idle streams) are exempt. A client that sends a
    /// byte now and then is never idle: ``headerTimeout`` and ``bodyTimeout`` bound it.
    public var idleTimeoutSeconds: Int
    /// libmicrohttpd's memory pool per connection. It holds the request line and header fields
    /// while they arrive, so it is the hard bound on them: one line must fit in half of it (the
    /// read buffer MHD starts with), all of them with 48 bytes of bookkeeping each in the whole.
    /// Beyond it libmicrohttpd itself answers a bare 431 (or 414) that the handler never sees,
    /// or, at the very edge, closes without an answer. Below it ``maxHeaderBytes`` applies and
    /// the handler answers.
    ///
    /// Every connection pays for it: MHD zeroes the rest of its read buffer (half the pool) when
    /// a response starts and the whole pool between keep-alive requests. Measured with 2000 idle
    /// event streams (`MemoryTests`, 0.9.75): 8.4 KiB each at 6 KiB, 10.5 at 8, 12.5 at 12,
    /// 14.4 at 16; one long header line fits up to about 2.9 KB at 6 KiB, 5.9 KB at 12, 8 KB at 16.
    public var connectionMemoryBytes: Int
    /// Pending connections the kernel queues before they are accepted.
    public var listenBacklog: Int
    /// Bytes a stream may hold unsent. A write past it gives up the stream's unsent frames for
    /// its producer's replacement (an event stream's `reset`) and the stream goes on; a stream
    /// still full at its next overflow, with nothing read since, is dropped as too slow
    /// (``ResponseStream``).
    public var maxBufferedStreamBytes: Int
    /// Bytes all streams together may hold unsent: past it, the streams holding the most give
    /// theirs up first (``StreamBudget``).
    public var maxBufferedStreamBytesTotal: Int = 64 << 20
    /// The send buffer of a stream's socket (`SO_SNDBUF`; Linux reserves twice it). Without it
    /// Linux grows the buffer of a socket whose client does not read up to `tcp_wmem`'s maximum
    /// (4 MiB): 1,000 such streams held 650 MB of kernel memory, out of sight of the process's
    /// resident size, and copying into them held the event loop hundreds of milliseconds. What a
    /// stream's client has not read is then bounded by this (twice) plus
    /// ``maxBufferedStreamBytes``; a stream reading over a long path gets at most this much per
    /// round trip.
    public var streamSocketBufferBytes: Int = 16 << 10
    /// The pieces of streamed bodies one turn of the event loop sends, each at most a
    /// connection's write buffer (a few KiB with the default ``connectionMemoryBytes``): past
    /// them the streams wait for the next turn, so that an event to thousands of streams is sent
    /// over many short turns and other connections are served between them (``StreamPacer``).
    public var streamSendsPerTurn: Int = 32
    /// The longest the event loop sleeps without an event (a safety net: resumes, new data,
    /// timeouts, shutdown all wake it sooner). 250 ms: the header and body deadlines are checked
    /// at least this often, and an idle server with 10,000 streams wakes 4 times a second.
    public var maxEventLoopWait: Duration = .milliseconds(250)
    /// Once the event loop is told to stop (the end of ``HTTPServer/shutdown(gracePeriod:)``),
    /// how long a request already handed to another thread may take to answer before it is
    /// answered 503; after twice this the loop ends with whatever is left unsent.
    public var stopPatience: Duration = .seconds(1)

    /// The most time a client may take to send a request line and header fields: counted from
    /// the connection's accept, or on keep-alive from the end of the previous request (so an idle
    /// keep-alive connection is closed after it too). Past it the connection is closed without
    /// an answer, whether or not bytes still trickle in (slowloris). `.zero` disables it.
    public var headerTimeout: Duration = .seconds(20)
    /// The most time a request body may take, from the moment admission lets it come (headers
    /// complete, or a deferred admission's decision) to its last byte. Past it the handler's
    /// 408 (``HTTPRejection/requestTimeout``) is sent and the connection closed. `.zero` disables it.
    public var bodyTimeout: Duration = .seconds(60)
    /// The largest request line plus header section (as received, line ends included) that
    /// reaches the handler; larger ones get 431 through ``HTTPHandler/response(for:head:)``.
    ///
    /// Effective only below what ``connectionMemoryBytes`` can hold, with room left for the
    /// response head: about `connectionMemoryBytes / 2 - 1 KiB` for one long field. With the
    /// default 6 KiB pool libmicrohttpd's own bare 431 comes first; the default stays above
    /// that so that no request MHD accepts today is refused, and takes over for pools of
    /// 18 KiB and more (at the memory cost stated there).
    public var maxHeaderBytes: Int = 8 << 10
    /// The longest request target (path and query as sent); longer ones get 414.
    public var maxTargetBytes: Int = 2 << 10
    /// The most query arguments a request may carry; more get 414 (libmicrohttpd stores each in
    /// the connection's pool and, once that is full, answers nothing).
    public var maxQueryArguments: Int = 64
    /// Bytes all request bodies being received may hold together. A request whose declared
    /// length would exceed it gets 503 with `Retry-After` before its body is read; a chunked body
    /// that crosses it is discarded and answered 503.
    public var maxBufferedBodyBytes: Int = 64 << 20
    /// Answers with a body of at least this many bytes are moved, by the thread that made them,
    /// into memory of their own that libmicrohttpd sends without copying on the event loop, and
    /// count against ``maxBufferedAnswerBytes`` (``AnswerBudget``).
    public var largeAnswerBytes: Int = 256 << 10
    /// Bytes such large answers may hold together until their clients have read them; an answer
    /// beyond it gets 503 with `Retry-After`.
    public var maxBufferedAnswerBytes: Int = 256 << 20
    /// The libmicrohttpd workarounds in force: all of them, always, except in the tests that
    /// show the library's own behaviour (`WorkaroundTests`).
    package var workarounds: MHDWorkarounds = .all

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        maxBodyBytes: Int = 1 << 20,
        maxDiscardBytes: Int = 16 << 20,
        maxConnections: Int = 16_384,
        maxConnectionsPerIP: Int = 1_024,
        idleTimeoutSeconds: Int = 60,
        connectionMemoryBytes: Int = 6 << 10,
        listenBacklog: Int = 1_024,
        maxBufferedStreamBytes: Int = 1 << 20
    ) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.maxDiscardBytes = maxDiscardBytes
        self.maxConnections = maxConnections
        self.maxConnectionsPerIP = maxConnectionsPerIP
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.connectionMemoryBytes = connectionMemoryBytes
        self.listenBacklog = listenBacklog
        self.maxBufferedStreamBytes = maxBufferedStreamBytes
    }
}
