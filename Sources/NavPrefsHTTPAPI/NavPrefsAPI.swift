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
        /// The hosts the service answers to, and the proxies it believes.
        public var policy: RequestPolicy
        /// Mixed into the stream-token key (`--stream-secret-file`), when the operator gave one.
        public var streamSecret: String?
        /// The profile quota the store enforces, shown in `/metrics`.
        public var profileQuotaBytes = 0
        /// The bound on each profile's event log the store enforces, shown in `/metrics`.
        public var eventLogMaxBytes = 0
        /// Bodies larger than this are decoded and handled off the event loop (``LargeWorkLane``).
        public var loopBodyBytes = 16 << 10
        /// Threads of the ``LargeWorkLane``.
        public var largeWorkThreads = 2
        /// Threads of the ``RequestTaskExecutor``: its tasks await the store and block nothing,
        /// so a few keep up with every request that awaits.
        public var requestTaskThreads = 2
        /// Bytes a read may take on the event loop before a reader takes it over (the store's
        /// own setting, shown in `/metrics`).
        public var loopReadBytes = 0

        public init(cors: CORSPolicy = .none, sseHeartbeat: Duration = .seconds(15), sseRetry: Duration = .seconds(2),
                    maxSubscribers: Int = 10_000, maxSubscribersPerAddress: Int = 256, alwaysRequireTokens: Bool = false,
                    policy: RequestPolicy = RequestPolicy(), streamSecret: String? = nil) {
            self.alwaysRequireTokens = alwaysRequireTokens
            self.policy = policy
            self.streamSecret = streamSecret
            self.cors = cors
            self.sseHeartbeat = sseHeartbeat
            self.sseRetry = sseRetry
            self.maxSubscribers = maxSubscribers
            self.maxSubscribersPerAddress = maxSubscribersPerAddress
        }
    }

    let router: Router
    /// Told of the event loop's turns, so that it commits the writes of one turn once.
    let turns: (any TurnWriting)?
    let logger: Logger
    let cors: CORSPolicy
    let policy: RequestPolicy
    let hub: EventHub
    let readiness = Readiness()
    let requestMetrics = RequestMetrics()
    let storeErrors = StoreErrorMetrics()
    let authenticator: Authenticator
    /// What every answer of a route or of the gate goes through, in this order, once its
    /// status and body are decided (``finish(_:_:route:_:)``); each step says why it stands
    /// where it does.
    let responseSteps: [any ResponseStep]
    /// The steps of a refusal below the router (``response(for:head:)``): the same but CORS,
    /// since such a request is refused before its `Origin` is looked at.
    let rejectionSteps: [any ResponseStep]
    /// What the transport's streams and large answers hold, for `/metrics` (``reportTransport(streams:answers:)``).
    let transportGauges = TransportGauges()
    /// Where requests with large bodies are handled (``Options/loopBodyBytes``).
    let largeWork: LargeWorkLane
    /// Where the tasks of requests that await run (``RequestTaskExecutor``).
    let requestTasks: RequestTaskExecutor
    let loopBodyBytes: Int
    /// Where store calls' answers are rendered and finished: the event loop.
    let renderer = LoopRenderer()

    /// Assembles the API over `store`; starts nothing (see ``events`` and ``authenticator``,
    /// which the service starts and stops).
    /// - Parameter counterCache: answers counter reads from memory, when the store keeps one
    ///   (SQLite); `nil` reads every counter from the store.
    /// - Parameter turns: runs light writes on the event loop in its turns, when the store can
    ///   (SQLite); `nil` hands every write to the store's own threads.
    /// - Parameter tokens: where access tokens and the stream tokens' signing key are kept (the
    ///   same database as `store`, its other face).
    public init(store: any Store, tokens: any TokenStore, counterCache: (any CounterCacheReading)? = nil, turns: (any TurnWriting)? = nil, logger: Logger,
                options: Options = Options()) {
        self.logger = logger
        self.turns = turns
        cors = options.cors
        policy = options.policy
        largeWork = LargeWorkLane(threads: options.largeWorkThreads)
        requestTasks = RequestTaskExecutor(threads: options.requestTaskThreads)
        loopBodyBytes = options.loopBodyBytes
        hub = EventHub(feed: store.feed, limits: .init(
            maxSubscribers: options.maxSubscribers, maxSubscribersPerAddress: options.maxSubscribersPerAddress,
            heartbeat: options.sseHeartbeat, retry: options.sseRetry))
        let limits = PreferenceLimits()
        let authenticator = Authenticator(store: tokens, alwaysRequired: options.alwaysRequireTokens, streamSecret: options.streamSecret,
                                          tokensAppeared: { [hub] in hub.endStreamsOpenedWithoutToken() })
        self.authenticator = authenticator
        router = Router([
            HealthRoutes(store: store, readiness: readiness, tasks: requestTasks),
            MetricsRoutes(requests: requestMetrics, storeErrors: storeErrors, hub: hub, store: store,
                          profileQuotaBytes: options.profileQuotaBytes, eventLogMaxBytes: options.eventLogMaxBytes, transport: transportGauges,
                          largeWork: largeWork, loopBodyBytes: options.loopBodyBytes, loopReadBytes: options.loopReadBytes),
            CounterRoutes(store: store, cache: counterCache),
            PreferenceRoutes(store: store, limits: limits, lane: largeWork),
            DefaultsRoutes(store: store, limits: limits, lane: largeWork),
            FontRoutes(store: store),
            EventRoutes(store: store, hub: hub),
            StateRoutes(store: store),
            SessionRoutes(store: store),
            StackRoutes(write: SessionWrite(store: store)),
            SessionEditRoutes(write: SessionWrite(store: store)),
            NavigationBarRoutes(store: store, write: SessionWrite(store: store)),
            TokenRoutes(store: tokens, authenticator: authenticator, endStreams: { [hub] id in hub.endStreams(issuedBy: id) }),
            ProfileListRoutes(store: store),
            ConsoleRoutes(),
        ])
        let fields: [any ResponseStep] = [CacheControlStep(), NoSniffStep(), RequestIDStep()]
        let accounting: [any ResponseStep] = [MetricsStep(metrics: requestMetrics), RequestLogStep(logger: logger, policy: options.policy)]
        responseSteps = fields + [CORSStep(policy: options.cors)] + accounting
        rejectionSteps = fields + accounting
    }

    /// Learns whether tokens exist, so whether requests need one (before the service listens).
    public func startAuthentication() async {
        await authenticator.refresh()
    }

    /// Keeps learning which tokens exist, every ``Authenticator/cacheTTL``, until the calling
    /// task is cancelled: tokens made elsewhere (another instance, the command line) turn
    /// authentication on here too, and the event streams of tokens revoked elsewhere end. While
    /// none exists it also looks every ``Authenticator/openModeLook``, so that the first token
    /// ends the open mode, and the streams opened without one, within that time; the sweep of
    /// revoked tokens' streams, which walks every stream, keeps the slower pace.
    public func refreshAuthenticationUntilCancelled() async {
        let clock = ContinuousClock()
        while !Task.isCancelled {
            let sweep = clock.now + Authenticator.cacheTTL
            while !authenticator.isRequired, clock.now + Authenticator.openModeLook < sweep, !Task.isCancelled {
                try? await Task.sleep(for: Authenticator.openModeLook)
                await authenticator.refresh()
            }
            try? await Task.sleep(until: sweep, clock: clock)
            guard !Task.isCancelled else { return }
            if let existing = await authenticator.refresh() { hub.endStreams(notIssuedByAnyOf: existing) }
        }
    }

    /// Whether any token was stored at the last look (see ``startAuthentication()``).
    public var tokensExist: Bool { authenticator.hasTokens }

    /// Reports what the transport (the server, or an in-memory one) holds in `/metrics`: what
    /// its streams hold unsent, and its large answers.
    public func reportTransport(streams: StreamBudget, answers: AnswerBudget?) {
        transportGauges.budgets.withLock { $0 = (streams, answers) }
    }

    /// Starts the threads of large requests (``LargeWorkLane``).
    public func startLargeWork() { largeWork.start() }

    /// Stops them once the requests handed to them are answered (after the HTTP server stopped).
    public func stopLargeWork() { largeWork.stop() }

    /// Starts the threads of the tasks requests start (``RequestTaskExecutor``).
    public func startRequestTasks() { requestTasks.start() }

    /// Stops them once what they hold has run (after the HTTP server stopped); a task that goes
    /// on later continues on the process' shared pool.
    public func stopRequestTasks() { requestTasks.stop() }

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

    /// Runs the route admission passed (its ``Admitted`` admission context: nothing of the
    /// admission check runs again) and answers through `responder`: at once for what memory
    /// holds, else on the event loop once the store call's thread handed its result over
    /// (``APIResult/pending(_:)``, ``LoopRenderer``), the one place a ``StoreError`` becomes an answer.
    public func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        // What a body costs to decode and check grows with its size: a large one is handled off
        // the event loop, which answers everyone else meanwhile.
        guard request.body.count <= loopBodyBytes else {
            return largeWork.handleBody { [self] in route(request, responder: responder) }
        }
        route(request, responder: responder)
    }

    /// Runs the route of `request` (on the event loop, or the large-work lane).
    private func route(_ request: HTTPRequest, responder: HTTPResponder) {
        let head = request.head
        guard let admitted = request.admissionContext as? Admitted else {
            // Every request passes admit first; a request without its admission context is the server's bug.
            let error = APIError(.internalError, "The request lost its admission.")
            responder.respond(finish(error.response(instance: head.path), head, route: "-", RequestID.take(from: head.headers)))
            return
        }
        let (route, requestID) = (admitted.route, admitted.requestID)
        let routed = APIRequest(http: request, template: route.template, parameterNames: route.parameterNames,
                                parameterValues: admitted.parameters, caller: admitted.caller, device: admitted.device,
                                client: policy.clientAddress(peer: request.remoteAddress, headers: request.headers),
                                isSecure: policy.isSecure(peer: request.remoteAddress, headers: request.headers))
        let result: APIResult
        do throws(APIError) {
            result = try route.handler(routed)
        } catch {
            responder.respond(finish(answer(error, head, requestID), head, route: route.template, requestID))
            return
        }
        switch result {
        case .immediate(let response):
            responder.respond(finish(response, head, route: route.template, requestID))
        case .pending(let start):
            requestMetrics.started()
            start(PendingReply(renderer: renderer) { [self] result in finishPending(result, head, route.template, requestID, responder) })
        case .deferred(let work):
            requestMetrics.started()
            // A task only for the routes that await (see APIResult.deferred); never a write's path.
            Task(executorPreference: requestTasks) { [self] in
                let result: Result<HTTPResponse, StoreError>
                do throws(StoreError) { result = .success(try await work()) } catch { result = .failure(error) }
                renderer.submit { [self] in finishPending(result, head, route.template, requestID, responder) }
            }
        }
    }

    /// Answers a store call once its result is rendered (on the event loop, ``LoopRenderer``).
    private func finishPending(_ result: Result<HTTPResponse, StoreError>, _ head: HTTPRequestHead, _ template: String,
                               _ requestID: String, _ responder: HTTPResponder) {
        responder.respond(finish(response(result, head, requestID), head, route: template, requestID))
        requestMetrics.finished()
    }

    /// The response of a store call: the route's, or the answer to the store's refusal.
    private func response(_ result: Result<HTTPResponse, StoreError>, _ head: HTTPRequestHead, _ requestID: String) -> HTTPResponse {
        switch result {
        case .success(let response): response
        case .failure(let error): answer(APIError(error, conditionalOn: head.headers), head, requestID)
        }
    }

    /// Every refusal below the router (framing, limits, deadlines, shutdown), as problem+json
    /// with the headers every answer carries, logged once.
    public func response(for rejection: HTTPRejection, head: HTTPRequestHead) -> HTTPResponse {
        var response = APIError(rejection).response(instance: String(head.path.prefix(200)))
        let context = ResponseContext(request: head, route: "-", requestID: RequestID.take(from: head.headers), microseconds: 0,
                                      rejection: rejection.kind)
        for step in rejectionSteps { step.apply(to: &response, context) }
        return response
    }

    /// A turn of the event loop: first the answers other threads handed over since the last
    /// turn are rendered and finished (``LoopRenderer``); then the store may run the turn's light
    /// writes at once and commit them together when it ends (SQLite, ``TurnWriting``).
    public func turnBegan() {
        renderer.runQueued()
        turns?.beginTurn()
    }

    public func turnEnded() { turns?.endTurn() }

    public func eventLoopStarted(wake: @escaping @Sendable () -> Void) {
        renderer.loopStarted(wake: wake)
        turns?.startTurns(wake: wake)
    }

    public func eventLoopStopped() {
        turns?.stopTurns()
        renderer.loopStopped()
    }

    /// Answers rendered off the event loop by design (a large read's, a collection write's),
    /// then finished on it: tests show where work ran with it.
    public var answersRenderedElsewhere: Int { renderer.renderedElsewhere.load(ordering: .relaxed) }

    /// An answer that was logged with its status and then never reached the client (its
    /// connection failed or closed first): logged once more, so the log says so.
    public func answerUndelivered(status: Int, headers: HTTPHeaders, head: HTTPRequestHead) {
        logger.warning("client aborted", [
            "request_id": .string(headers[HeaderName.xRequestID] ?? RequestID.take(from: head.headers)),
            "method": .string(String(head.method.prefix(20))), "status": .integer(Int64(status)),
            "detail": .string("the connection closed before the answer was sent"),
            "remote": .string(policy.clientAddress(peer: head.remoteAddress, headers: head.headers)),
        ])
    }

    func answer(_ error: APIError, _ request: HTTPRequestHead, _ requestID: String) -> HTTPResponse {
        if let kind = error.storeErrorKind { storeErrors.record(kind) }
        // Damaged data takes the instance out of service for good (Readiness).
        if error.storeErrorKind == "corrupted", readiness.storeDamaged(error.logDetail ?? "storage corrupted") {
            logger.error("store damaged: /readyz answers 503 from now on", ["request_id": .string(requestID),
                                                                             "error": .string(error.logDetail ?? "")])
        }
        if let detail = error.logDetail {
            logger.error("request failed", ["request_id": .string(requestID), "error": .string(detail)])
        }
        return error.response(instance: request.path)
    }

    /// Runs ``responseSteps`` on an answer of `route` (`-` when none matched): the fields
    /// every answer carries, the metrics, the log line.
    func finish(_ response: consuming HTTPResponse, _ request: HTTPRequestHead, route: String, _ requestID: String) -> HTTPResponse {
        // Consumed, not copied: a copy's first added field copied the whole list of fields.
        var response = response
        let context = ResponseContext(answering: request, route: route, requestID: requestID)
        for step in responseSteps { step.apply(to: &response, context) }
        return response
    }
}
