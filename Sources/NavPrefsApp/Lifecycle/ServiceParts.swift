import MicroHTTPServer
import NavPrefsHTTPAPI
import NavPrefsStore

/// The log flusher: first to start, last to stop, so every other part's lines get out.
struct LogPart: ServicePart {
    let logger: Logger
    var name: String { "log" }
    func start() async throws { logger.startBatching() }
    func stop() async { logger.stopBatching() }
}

/// The store: its database opened (and migrated) and its threads started; closed once every
/// write in flight has committed.
struct StorePart: ServicePart {
    let store: any Store
    let logger: Logger
    var name: String { "store" }
    func start() async throws {
        // Opening blocks (a migration, a connection): off the cooperative pool.
        try await runOffThePool { [store] in try store.start() }
        for notice in store.startNotices { logger.warning("store", ["notice": .string(notice)]) }
    }
    func stop() async { await store.close() }
}

/// Whether requests need tokens: learnt before the service listens, then refreshed until stop.
struct AuthenticationPart: ServicePart {
    let api: NavPrefsAPI
    /// Tokens are required even while none exists (the service listens beyond loopback).
    let protectedMode: ProtectedMode?
    var name: String { "authentication" }

    /// Why the service refuses to listen with no token: anyone who reaches it could use it.
    struct ProtectedMode: Error, CustomStringConvertible {
        let host: String
        var description: String {
            "no access token exists and --host \(host) is reachable from other machines; create one first "
                + "(navprefs tokens create --admin), or pass --allow-unauthenticated to serve every profile to anyone"
        }
    }

    func start() async throws {
        await api.startAuthentication()
        if let protectedMode, !api.tokensExist { throw protectedMode }
    }
    func run() async { await api.refreshAuthenticationUntilCancelled() }
    func stop() async {}
}

/// The threads of requests whose bodies are too large for the event loop: stopped after the HTTP
/// server (every request handed to them is answered) and before the store.
struct LargeWorkPart: ServicePart {
    let api: NavPrefsAPI
    var name: String { "large work" }
    func start() async throws { api.startLargeWork() }
    func stop() async { await waitOffThePool { [api] in api.stopLargeWork() } }
}

/// The threads of the tasks requests start (routes that await the store, token look-ups, the
/// readiness ping): stopped after the HTTP server, so every such request was answered.
struct RequestTasksPart: ServicePart {
    let api: NavPrefsAPI
    var name: String { "request tasks" }
    func start() async throws { api.startRequestTasks() }
    func stop() async { await waitOffThePool { [api] in api.stopRequestTasks() } }
}

/// Event delivery: the store's committed events to the streams, and heartbeats.
struct EventDeliveryPart: ServicePart {
    let api: NavPrefsAPI
    var name: String { "event delivery" }
    func start() async throws { api.startEventDelivery() }
    func stop() async { api.stopEventDelivery() }
}

/// The HTTP server: binds and serves; on stop, requests in flight get the grace period.
struct HTTPServerPart: ServicePart {
    let server: HTTPServer
    let logger: Logger
    let host: String
    let gracePeriod: Duration
    var name: String { "http" }

    func start() async throws {
        try server.start()
        let shown = host.contains(":") ? "[\(host)]" : host
        logger.info("listening", ["url": .string("http://\(shown):\(server.port)")])
    }
    func stop() async { await server.shutdown(gracePeriod: gracePeriod) }
}

/// Readiness: on stop, first of all, `/readyz` answers 503 while the listener still accepts
/// (load balancers stop sending here during the drain delay), then every event stream gets a
/// final `shutdown` event so clients reconnect, with their last event id, elsewhere.
struct ReadinessPart: ServicePart {
    let api: NavPrefsAPI
    let drain: Duration
    var name: String { "readiness" }
    func start() async throws {}
    func stop() async {
        api.beginShutdown()
        if drain > .zero { try? await Task.sleep(for: drain) }
        api.closeEventStreams()
    }
}
