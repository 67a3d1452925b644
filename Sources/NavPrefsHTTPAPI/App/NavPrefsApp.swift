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

    /// Opens the store (creating and migrating the database if needed); does not listen yet.
    public init(_ configuration: Configuration, logger: Logger) throws(StoreError) {
        self.configuration = configuration
        self.logger = logger
        switch configuration.database {
        case .sqlite(let path):
            store = try SQLiteStore(.init(path: path, durability: configuration.sqliteSynchronous))
        }
        let api = NavPrefsAPI(store: store, logger: logger)
        server = HTTPServer(
            configuration: ServerConfiguration(
                host: configuration.host,
                port: configuration.port,
                maxBodyBytes: configuration.maxBodyBytes,
                maxConnections: configuration.maxConnections,
                maxConnectionsPerIP: configuration.maxConnectionsPerIP,
                idleTimeoutSeconds: configuration.idleTimeoutSeconds),
            handler: api)
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
        await server.shutdown(gracePeriod: .seconds(configuration.shutdownGraceSeconds))
        await store.close()
        logger.flush()
    }
}
