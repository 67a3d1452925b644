public import MicroHTTPServer
public import NavPrefsHTTPAPI
import NavPrefsPostgres
import NavPrefsSQLite
public import NavPrefsStore

/// The service, assembled from a ``Configuration``: the store, the API, the HTTP server and the
/// parts that run them. `navprefs` runs exactly this; tests build it the same way on port 0.
///
/// Building opens nothing and starts no thread: ``start()`` starts the parts in order (log
/// flusher, the check that the address can be listened on, store, authentication, event
/// delivery, HTTP server, readiness), ``run()`` serves until ``shutdown`` is requested and then
/// stops them in reverse.
public final class NavPrefsApp: Sendable {
    public let configuration: Configuration
    public let logger: Logger
    public let store: any Store
    /// The same database's access tokens and shared secrets (``TokenStore``).
    public let tokens: any TokenStore
    public let server: HTTPServer
    public let api: NavPrefsAPI
    /// Requested by a signal (``ShutdownSignal/installHandlers(for:)``) or by ``shutdown()``.
    public let shutdownSignal: ShutdownSignal
    private let group: ServiceGroup
    private let stopped = ShutdownSignal()

    /// - Parameter listens: `false` leaves the HTTP server out of the parts (it is built, never
    ///   started): for tests that drive ``api`` through an `InMemoryHTTPTransport` instead.
    public init(_ configuration: Configuration, logger: Logger, shutdown: ShutdownSignal = ShutdownSignal(), listens: Bool = true) {
        self.configuration = configuration
        self.logger = logger
        self.shutdownSignal = shutdown
        let chosen = StoreChoice.store(for: configuration)
        let store = chosen.store
        self.store = store
        tokens = store
        // A SIGTERM while PostgreSQL does not answer stops the start at once (libpq's connect
        // blocks a thread until its timeout).
        if let postgres = store as? PostgresStore { shutdown.whenRequested { postgres.abandonConnecting() } }
        var options = NavPrefsAPI.Options(
            cors: configuration.corsOrigins,
            sseHeartbeat: .seconds(configuration.sseHeartbeatSeconds),
            sseRetry: .milliseconds(configuration.sseRetryMilliseconds),
            maxSubscribers: configuration.sseMaxSubscribers,
            maxSubscribersPerAddress: configuration.sseMaxSubscribersPerIP,
            alwaysRequireTokens: configuration.requiresTokens,
            policy: RequestPolicy(allowedHosts: configuration.effectiveAllowedHosts, trustedProxies: configuration.trustedProxies),
            streamSecret: configuration.streamSecret)
        options.profileQuotaBytes = configuration.profileQuotaBytes
        options.eventLogMaxBytes = configuration.eventRetentionBytes
        options.loopBodyBytes = configuration.loopBodyBytes
        if case .sqlite = configuration.database { options.loopReadBytes = configuration.loopReadBytes }
        api = NavPrefsAPI(store: store, tokens: store, counterCache: chosen.counterCache, turns: chosen.turns, logger: logger, options: options)
        var serverConfiguration = ServerConfiguration(
            host: configuration.host,
            port: configuration.port,
            maxBodyBytes: configuration.maxBodyBytes,
            maxConnections: configuration.maxConnections,
            maxConnectionsPerIP: configuration.maxConnectionsPerIP,
            idleTimeoutSeconds: configuration.idleTimeoutSeconds,
            connectionMemoryBytes: configuration.connectionMemoryBytes,
            maxBufferedStreamBytes: configuration.sseStreamBufferBytes)
        serverConfiguration.maxBufferedStreamBytesTotal = configuration.sseBufferTotalBytes
        serverConfiguration.streamSocketBufferBytes = configuration.sseSocketBufferBytes
        serverConfiguration.maxBufferedAnswerBytes = configuration.maxBufferedAnswerBytes
        serverConfiguration.headerTimeout = .seconds(configuration.headerTimeoutSeconds)
        serverConfiguration.bodyTimeout = .seconds(configuration.bodyTimeoutSeconds)
        serverConfiguration.maxBufferedBodyBytes = configuration.maxBufferedBodyBytes
        server = HTTPServer(
            configuration: serverConfiguration,
            handler: api,
            messageLog: { message in
                // A client leaving mid-answer is routine for event streams; the rest is worth a look.
                let routine = message.contains("no longer available") || message.contains("reset by peer")
                    || message.contains("Broken pipe") || message.contains("closed by remote")
                logger.log(routine ? .debug : .warning, "libmicrohttpd", [("message", .string(message))])
            })
        api.reportTransport(streams: server.streamBudget, answers: server.answerBudget)
        if case .postgres = configuration.database, configuration.streamSecret == nil {
            logger.warning("stream tokens", ["notice": .string(
                "no --stream-secret-file: whoever can read the database's secrets table can sign stream tokens")])
        }
        let http: [any ServicePart] = listens
            ? [HTTPServerPart(server: server, logger: logger, host: configuration.host,
                              gracePeriod: .seconds(configuration.shutdownGraceSeconds))]
            : []
        let listenCheck: [any ServicePart] = listens ? [ListenCheckPart(host: configuration.host, port: configuration.port)] : []
        group = ServiceGroup([
            LogPart(logger: logger),
        ] + listenCheck + [
            StorePart(store: store, logger: logger),
            AuthenticationPart(api: api, protectedMode: configuration.requiresTokens
                ? AuthenticationPart.ProtectedMode(host: configuration.host) : nil),
            LargeWorkPart(api: api),
            RequestTasksPart(api: api),
            EventDeliveryPart(api: api),
        ] + http + [
            ReadinessPart(api: api, drain: .seconds(configuration.readinessDrainSeconds)),
        ], shutdown: shutdown, logger: logger)
    }

    /// Starts every part in order; once it returns without a shutdown requested, the service
    /// listens on ``port``. A part that fails stops those started before it; its error is thrown.
    public func start() async throws {
        try await group.start()
    }

    /// The port the service listens on (0 before it does, and without a listener).
    public var port: Int { server.port }

    /// Serves until a shutdown is requested, then stops every part in reverse order: readiness
    /// off and a drain delay, the event streams ended, requests in flight given the grace
    /// period, event delivery, authentication, the store (once every write committed), the log.
    public func run() async {
        await group.run()
        stopped.request(reason: "stopped")
    }

    /// Requests a shutdown and returns once ``run()`` has stopped everything.
    public func shutdown() async {
        shutdownSignal.request(reason: "requested")
        await stopped.wait()
    }
}

/// The one place that picks a store kind.
enum StoreChoice {
    /// The store `configuration` names (not opened yet), with its counter cache and its turns
    /// when it has them. `access`: the service's, or a command's (which runs one reader thread
    /// or connection).
    static func store(for configuration: Configuration, access: StoreAccess = .service)
        -> (store: any TransactionalStore, counterCache: (any CounterCacheReading)?, turns: (any TurnWriting)?) {
        var limits = StoreLimits(idempotencyWindow: .seconds(configuration.idempotencyWindowSeconds),
                                 sessionIdleExpiry: .seconds(configuration.sessionIdleExpirySeconds))
        limits.profileQuotaBytes = configuration.profileQuotaBytes
        limits.maxEventLogBytes = configuration.eventRetentionBytes
        limits.maxIdempotencyKeysPerProfile = configuration.idempotencyKeysPerProfile
        limits.maxIdempotencyKeysPerToken = configuration.idempotencyKeysPerToken
        let policy = StorePolicy(limits: limits,
                                 retention: EventRetention(count: configuration.eventRetentionCount,
                                                           age: .seconds(configuration.eventRetentionSeconds)))
        switch configuration.database {
        case .sqlite(let path):
            var options = SQLiteStore.Options(path: path, durability: configuration.sqliteSynchronous, policy: policy)
            options.access = access
            options.callingThreadReadBytes = configuration.loopReadBytes
            options.heavyWriteBytes = configuration.loopBodyBytes
            if !access.background { options.readerCount = 1 }
            let store = SQLiteStore(options)
            return (store, store, store)
        case .postgres(let url):
            var options = PostgresStore.Options(url: url, policy: policy, poolSize: access.background ? configuration.postgresPoolSize : 1)
            options.access = access
            return (PostgresStore(options), nil, nil)
        }
    }

    /// What the database `configuration` names is, read without changing it.
    static func probe(_ configuration: Configuration) throws(StoreError) -> StoreProbe {
        switch configuration.database {
        case .sqlite(let path): try SQLiteStore.probe(path: path)
        case .postgres(let url): try PostgresStore.probe(url: url)
        }
    }

    /// The process serving the database `configuration` names now, when that excludes others
    /// (a SQLite file: `PID 4242, listening on port 8080`); `nil` otherwise or when unknown.
    static func holder(of configuration: Configuration) -> String? {
        if case .sqlite(let path) = configuration.database { SQLiteStore.holder(path: path) } else { nil }
    }

    /// The store kind's name in exports and messages: `sqlite` or `postgresql`.
    static func kind(of configuration: Configuration) -> String {
        if case .sqlite = configuration.database { "sqlite" } else { "postgresql" }
    }
}
