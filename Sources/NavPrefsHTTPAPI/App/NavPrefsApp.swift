public import MicroHTTPServer
import NavPrefsJSON
public import NavPrefsStore

/// The service, assembled from a ``Configuration``: the store, the API and the HTTP server.
/// `navprefs` runs exactly this; tests build it the same way on port 0.
public final class NavPrefsApp: Sendable {
    public let configuration: Configuration
    public let logger: Logger
    public let store: any Store
    public let server: HTTPServer
    public let api: NavPrefsAPI

    /// Opens the store (creating and migrating the database if needed); does not listen yet.
    public init(_ configuration: Configuration, logger: Logger) throws(StoreError) {
        self.configuration = configuration
        self.logger = logger
        store = try Self.openStore(configuration)
        api = NavPrefsAPI(store: store, logger: logger, options: .init(
            cors: configuration.corsOrigins,
            sseHeartbeat: .seconds(configuration.sseHeartbeatSeconds),
            sseRetry: .milliseconds(configuration.sseRetryMilliseconds),
            maxSubscribers: configuration.sseMaxSubscribers,
            maxSubscribersPerAddress: configuration.sseMaxSubscribersPerIP,
            alwaysRequireTokens: !configuration.listensOnLoopbackOnly && !configuration.allowUnauthenticated))
        server = HTTPServer(
            configuration: ServerConfiguration(
                host: configuration.host,
                port: configuration.port,
                maxBodyBytes: configuration.maxBodyBytes,
                maxConnections: configuration.maxConnections,
                maxConnectionsPerIP: configuration.maxConnectionsPerIP,
                idleTimeoutSeconds: configuration.idleTimeoutSeconds,
                connectionMemoryBytes: configuration.connectionMemoryBytes),
            handler: api,
            messageLog: { message in
                // A client leaving mid-answer is routine for event streams; the rest is worth a look.
                let routine = message.contains("no longer available") || message.contains("reset by peer")
                    || message.contains("Broken pipe") || message.contains("closed by remote")
                logger.log(routine ? .debug : .warning, "libmicrohttpd", [("message", .string(message))])
            })
    }

    /// The store `configuration` names, opened (created and migrated if needed).
    static func openStore(_ configuration: Configuration) throws(StoreError) -> any Store {
        switch configuration.database {
        case .sqlite(let path):
            try SQLiteStore(.init(
                path: path, durability: configuration.sqliteSynchronous,
                eventRetentionCount: configuration.eventRetentionCount,
                eventRetentionAge: .seconds(configuration.eventRetentionSeconds)))
        case .postgres(let url):
            try PostgresStore(.init(
                url: url, poolSize: configuration.postgresPoolSize,
                eventRetentionCount: configuration.eventRetentionCount,
                eventRetentionAge: .seconds(configuration.eventRetentionSeconds)))
        }
    }

    /// Starts listening; ``port`` is the bound port afterwards.
    public func start() throws(HTTPServerError) {
        try server.start()
    }

    public var port: Int { server.port }

    /// Serves until ``shutdown()`` completes.
    public func run() async {
        await server.run()
    }

    /// Stops gracefully: requests in flight get the configured grace period, then the store is
    /// closed once every write has committed.
    public func shutdown() async {
        // Readiness off first, while the listener still accepts: load balancers that probe
        // /readyz stop sending new requests here during the drain delay.
        api.beginShutdown()
        if configuration.readinessDrainSeconds > 0 {
            try? await Task.sleep(for: .seconds(configuration.readinessDrainSeconds))
        }
        // Streams next: each gets a final event and its chunked end, so clients reconnect
        // (with their last event id) to whichever instance comes next.
        api.closeEventStreams()
        await server.shutdown(gracePeriod: .seconds(configuration.shutdownGraceSeconds))
        await store.close()
        logger.flush()
    }
}
