public import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
public import NavPrefsStore
import Synchronization

/// NavPrefs' HTTP API: routes requests, answers errors as problem+json, adds the headers every
/// response carries, and logs one line per request.
public final class NavPrefsAPI: HTTPHandler {
    /// What the API is configured with beyond its store.
    public struct Options: Sendable {
        public var cors: CORSPolicy
        public var sseHeartbeat: Duration
        public var sseRetry: Duration
        public var maxSubscribers: Int
        public var maxSubscribersPerAddress: Int
        /// Tokens even while none is stored (the service listens beyond loopback); otherwise
        /// tokens are needed once one exists.
        public var alwaysRequireTokens: Bool

        public init(cors: CORSPolicy = .none, sseHeartbeat: Duration = .seconds(15), sseRetry: Duration = .seconds(2),
                    maxSubscribers: Int = 10_000, maxSubscribersPerAddress: Int = 256, alwaysRequireTokens: Bool = false) {
            self.alwaysRequireTokens = alwaysRequireTokens
            self.cors = cors
            self.sseHeartbeat = sseHeartbeat
            self.sseRetry = sseRetry
            self.maxSubscribers = maxSubscribers
            self.maxSubscribersPerAddress = maxSubscribersPerAddress
        }
    }

    let router: Router
    let logger: Logger
    let cors: CORSPolicy
    let hub: EventHub
    let readiness = Readiness()
    let requestMetrics = RequestMetrics()
    let storeErrors = StoreErrorMetrics()
    let authenticator: Authenticator

    /// Assembles the API over `store`; starts nothing (see ``events`` and ``authenticator``,
    /// which the service starts and stops).
    /// - Parameter counterCache: answers counter reads from memory, when the store keeps one
    ///   (SQLite); `nil` reads every counter from the store.
    public init(store: any Store, counterCache: (any CounterCacheReading)? = nil, logger: Logger, options: Options = Options()) {
        self.logger = logger
        cors = options.cors
        hub = EventHub(feed: store.feed, limits: .init(
            maxSubscribers: options.maxSubscribers, maxSubscribersPerAddress: options.maxSubscribersPerAddress,
            heartbeat: options.sseHeartbeat, retry: options.sseRetry))
        let limits = PreferenceLimits()
        let authenticator = Authenticator(store: store, alwaysRequired: options.alwaysRequireTokens)
        self.authenticator = authenticator
        router = Router(HealthRoutes(store: store, readiness: readiness).routes
            + MetricsRoutes(requests: requestMetrics, storeErrors: storeErrors, hub: hub).routes
            + CounterRoutes(store: store, cache: counterCache).routes
            + PreferenceRoutes(store: store, limits: limits).routes
            + DefaultsRoutes(store: store, limits: limits).routes
            + FontRoutes(store: store).routes
            + EventRoutes(store: store, hub: hub).routes
            + StateRoutes(store: store).routes
            + SessionRoutes(store: store).routes
            + StackRoutes(write: SessionWrite(store: store)).routes
            + SessionEditRoutes(write: SessionWrite(store: store)).routes
            + NavigationBarRoutes(store: store, write: SessionWrite(store: store)).routes
            + TokenRoutes(store: store, authenticator: authenticator).routes)
    }

    /// Learns whether tokens exist, so whether requests need one (before the service listens).
    public func startAuthentication() async {
        await authenticator.refresh()
    }

    /// Keeps learning whether tokens exist, every ``Authenticator/cacheTTL``, until the calling
    /// task is cancelled: tokens made elsewhere (another instance, the command line) turn
    /// authentication on here too.
    public func refreshAuthenticationUntilCancelled() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Authenticator.cacheTTL)
            guard !Task.isCancelled else { return }
            await authenticator.refresh()
        }
    }

    /// Whether any token was stored at the last look (see ``startAuthentication()``).
    public var tokensExist: Bool { authenticator.hasTokens }

    /// Starts delivering the store's events to streams and the heartbeats.
    public func startEventDelivery() { hub.start() }

    /// Stops the threads ``startEventDelivery()`` started (after ``closeEventStreams()``).
    public func stopEventDelivery() { hub.stop() }

    /// Event streams open right now.
    public var subscriberCount: Int { hub.subscriberCount }

    /// Turns readiness off (`/readyz` answers 503), the first step of a graceful shutdown.
    public func beginShutdown() { readiness.beginShutdown() }

    /// Ends every event stream with a `shutdown` event and refuses new ones (before the server stops).
    public func closeEventStreams() { hub.shutdown() }

    /// Every route template with its methods, for the OpenAPI contract test.
    public var routeTable: [(template: String, methods: [String])] { router.table }

    public func handle(_ request: HTTPRequest) -> HTTPHandlerResult {
        let requestID = RequestID.take(from: request.headers)
        switch router.match(method: request.method, path: request.rawPath) {
        case .malformedParameter(let template):
            let error = APIError(.malformedPath, "A path segment's percent-encoding is broken or does not decode to UTF-8.")
            return .immediate(finish(error.response(instance: request.path), request, route: template, requestID))
        case .notFound:
            let error = APIError(.notFound, "No resource at this path; see /openapi.yaml for the API.")
            return .immediate(finish(error.response(instance: request.path), request, route: "-", requestID))
        case .methodNotAllowed(let template, let allowed)
            where request.method == "OPTIONS" && request.headers.contains("Access-Control-Request-Method"):
            // A CORS preflight: answered for allowed origins, else like any other OPTIONS.
            if let origin = request.headers["Origin"], cors.allows(origin) {
                return .immediate(finish(cors.preflight(origin: origin, methods: allowed), request, route: template, requestID))
            }
            let error = APIError(.methodNotAllowed, "OPTIONS is not allowed here; use \(allowed.joined(separator: ", ")).",
                                 headers: [("Allow", allowed.joined(separator: ", "))])
            return .immediate(finish(error.response(instance: request.path), request, route: template, requestID))
        case .methodNotAllowed(let template, let allowed):
            let error = APIError(.methodNotAllowed, "\(request.method.prefix(20)) is not allowed here; use \(allowed.joined(separator: ", ")).",
                                 headers: [("Allow", allowed.joined(separator: ", "))])
            return .immediate(finish(error.response(instance: request.path), request, route: template, requestID))
        case .found(let route, let parameters):
            let routed = APIRequest(http: request, template: route.template, parameterNames: route.parameterNames,
                                    parameterValues: parameters)
            let result: APIResult
            switch authenticator.decide(routed) {
            case .allow:
                do {
                    result = try route.handler(routed)
                } catch {
                    return .immediate(finish(answer(error, request, requestID), request, route: route.template, requestID))
                }
            case .deny(let error):
                return .immediate(finish(answer(error, request, requestID), request, route: route.template, requestID))
            case .check(let check):
                // The token is not cached: the route runs once the store has vouched for it.
                result = .deferred { [self] () async throws(StoreError) -> HTTPResponse in
                    if let denial = try await check() { return answer(denial, request, requestID) }
                    let routeResult: APIResult
                    do throws(APIError) {
                        routeResult = try route.handler(routed)
                    } catch {
                        return answer(error, request, requestID)
                    }
                    switch routeResult {
                    case .immediate(let response): return response
                    case .deferred(let work): return try await work()
                    }
                }
            }
            switch result {
            case .immediate(let response):
                return .immediate(finish(response, request, route: route.template, requestID))
            case .deferred(let work):
                requestMetrics.started()
                return .deferred { [self] in
                    defer { requestMetrics.finished() }
                    let response: HTTPResponse
                    do throws(StoreError) {
                        response = try await work()
                    } catch {
                        // The one place a store error becomes an answer.
                        response = answer(APIError(error, conditionalOn: request.headers), request, requestID)
                    }
                    return finish(response, request, route: route.template, requestID)
                }
            }
        }
    }

    /// Every refusal below the router (framing, limits, deadlines, shutdown), as problem+json
    /// with the headers every answer carries, logged once.
    public func response(for rejection: HTTPRejection, head: HTTPRequestHead) -> HTTPResponse {
        var response = APIError(rejection).response(instance: String(head.path.prefix(200)))
        let requestID = RequestID.take(from: head.headers)
        response.headers.add("X-Content-Type-Options", "nosniff")
        response.headers.add("X-Request-ID", requestID)
        let method = String(head.method.prefix(20))
        requestMetrics.record(route: "-", method: method, status: response.status, microseconds: 0)
        logger.info("request", [
            "request_id": .string(requestID), "method": .string(method), "route": .string("-"),
            "status": .integer(Int64(response.status)), "rejected": .string(rejection.kind),
            "remote": .string(head.remoteAddress ?? "-"),
        ])
        return response
    }

    private func answer(_ error: APIError, _ request: HTTPRequest, _ requestID: String) -> HTTPResponse {
        if let kind = error.storeErrorKind { storeErrors.record(kind) }
        if let detail = error.logDetail {
            logger.error("request failed", ["request_id": .string(requestID), "error": .string(detail)])
        }
        return error.response(instance: request.path)
    }

    /// Adds the headers every answer carries and logs the request.
    private func finish(_ response: HTTPResponse, _ request: HTTPRequest, route: String, _ requestID: String) -> HTTPResponse {
        var response = response
        response.headers.add("X-Content-Type-Options", "nosniff")
        response.headers.add("X-Request-ID", requestID)
        if !cors.origins.isEmpty, let origin = request.headers["Origin"] { cors.decorate(&response, origin: origin) }
        let elapsed = (ContinuousClock.now - request.receivedAt).components
        let microseconds = elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000
        let method = request.method.utf8.count <= 20 ? request.method : String(request.method.prefix(20))
        requestMetrics.record(route: route, method: method, status: response.status, microseconds: microseconds)
        if logger.isEnabled(.info) {
            logger.log(.info, "request", [
                ("request_id", .string(requestID)),
                ("method", .string(method)),
                ("route", .string(route)),
                ("status", .integer(Int64(response.status))),
                ("duration_ms", .milliseconds(microseconds: microseconds)),
                ("remote", .string(request.remoteAddress ?? "-")),
            ])
        }
        return response
    }
}

/// Request ids: the client's `X-Request-ID` when it is short and printable, else a new one.
enum RequestID {
    private static let counter = Atomic<UInt64>(0)
    private static let prefix = String(UInt32.random(in: 0...UInt32.max), radix: 16)

    static func take(from headers: HTTPHeaders) -> String {
        if let given = headers["X-Request-ID"], !given.isEmpty, given.utf8.count <= 128,
           given.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            return given
        }
        return prefix + "-" + String(counter.wrappingAdd(1, ordering: .relaxed).newValue, radix: 16)
    }
}
