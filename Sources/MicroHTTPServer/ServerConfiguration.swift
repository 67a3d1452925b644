/// Where the server listens and the limits it enforces on every client.
///
/// Every limit has a default that is safe for a public listener; see the README's
/// configuration table for how the `navprefs` executable sets them.
public struct ServerConfiguration: Sendable, Equatable {
    /// A numeric IPv4 or IPv6 address, or a host name resolved at start.
    public var host: String
    /// 0 picks a free port; read it back from ``HTTPServer/port``.
    public var port: Int
    /// The largest request body accepted. Larger bodies get 413: before upload when the client
    /// sent `Expect: 100-continue`, otherwise after the body was read and discarded (so that
    /// clients that write the whole body before reading still see the 413).
    public var maxBodyBytes: Int
    /// How much of an oversized body is read and discarded before the server answers 413
    /// and closes the connection instead.
    public var maxDiscardBytes: Int
    /// Open connections in all (libmicrohttpd's own default, 1020, is far too low for SSE).
    public var maxConnections: Int
    /// Open connections per client IP address, so that one address cannot lock out the others.
    public var maxConnectionsPerIP: Int
    /// Seconds a connection may stay idle before it is closed; 0 disables the timeout.
    /// Suspended connections (deferred work, idle streams) are exempt.
    public var idleTimeoutSeconds: Int
    /// libmicrohttpd's memory pool per connection: the bound on request headers (431 beyond it)
    /// and the largest piece of a streamed body sent at once.
    public var connectionMemoryBytes: Int
    /// Pending connections the kernel queues before they are accepted.
    public var listenBacklog: Int
    /// Bytes a stream may hold unsent before its client is considered too slow and dropped.
    public var maxBufferedStreamBytes: Int
    /// The longest the event loop sleeps without an event (a safety net: resumes, new data,
    /// timeouts, shutdown all wake it sooner).
    public var maxEventLoopWait: Duration = .milliseconds(50)

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
