import MicroHTTPServer
import NavPrefsCore
import NavPrefsStore
import Synchronization

/// `GET /metrics` in Prometheus' text format: requests by route template, method and status,
/// latency per route, requests in flight, event streams and events sent, store errors, the
/// process (memory, CPU, file descriptors, start time) and `navprefs_build_info`.
struct MetricsRoutes: RouteCollection {
    let requests: RequestMetrics
    let storeErrors: StoreErrorMetrics
    let hub: EventHub
    let store: any Store
    /// The quota every profile has (`--profile-quota-bytes`), 0 for none.
    let profileQuotaBytes: Int
    /// The bound on every profile's event log (`--event-retention-bytes`), 0 for none.
    let eventLogMaxBytes: Int
    let transport: TransportGauges
    let largeWork: LargeWorkLane
    let loopBodyBytes: Int
    let loopReadBytes: Int

    var routes: [Route] {
        [Route(.get, "/metrics", .admin, .reads) { _ throws(APIError) in
            .deferred { [self] () async throws(StoreError) -> HTTPResponse in
                // Storage per profile needs the store; the rest is served even while it is down.
                render(largest: (try? await store.largestProfiles(limit: 10)) ?? [], scrapesInFlight: 1)
            }
        }]
    }

    /// - Parameter scrapesInFlight: the requests in flight that are this scrape itself, left out
    ///   of `navprefs_http_requests_in_flight` (an idle server reads 0, not 1).
    func render(largest: [ProfileStorage] = [], scrapesInFlight: Int = 0) -> HTTPResponse {
        var out = PrometheusText()
        out.family("navprefs_profile_quota_bytes", "gauge", "Bytes one profile may hold (--profile-quota-bytes; 0: no quota).")
        out.sample("navprefs_profile_quota_bytes", profileQuotaBytes)
        out.family("navprefs_event_log_max_bytes", "gauge", "Bytes of events one profile's log keeps (--event-retention-bytes; 0: no bound).")
        out.sample("navprefs_event_log_max_bytes", eventLogMaxBytes)
        out.family("navprefs_profile_storage_bytes", "gauge",
                   "Bytes held by the ten profiles holding the most: values, defaults, sessions, idempotency records and the event log.")
        for entry in largest { out.sample("navprefs_profile_storage_bytes", ["profile": entry.profile.rawValue], entry.bytes) }
        out.family("navprefs_profile_event_log_bytes", "gauge", "Bytes of the event log of the same ten profiles (part of the above).")
        for entry in largest { out.sample("navprefs_profile_event_log_bytes", ["profile": entry.profile.rawValue], entry.eventLogBytes) }
        let routes = requests.snapshot().sorted { $0.key < $1.key }

        out.family("navprefs_http_requests_total", "counter", "HTTP requests answered, by route template, method and status.")
        for (route, stats) in routes {
            for (key, count) in stats.requests.sorted(by: { ($0.key.method, $0.key.status) < ($1.key.method, $1.key.status) }) {
                out.sample("navprefs_http_requests_total", ["route": route, "method": key.method, "status": String(key.status)], count)
            }
        }
        out.family("navprefs_http_request_duration_seconds", "histogram",
                   "Time from the request's arrival to its answer, by route template.")
        for (route, stats) in routes {
            var cumulative = 0
            for (index, bound) in RequestMetrics.bucketBounds.enumerated() {
                cumulative += stats.buckets[index]
                out.sample("navprefs_http_request_duration_seconds_bucket", ["route": route, "le": PrometheusText.format(bound)], cumulative)
            }
            out.sample("navprefs_http_request_duration_seconds_bucket", ["route": route, "le": "+Inf"], stats.count)
            out.sample("navprefs_http_request_duration_seconds_sum", ["route": route], stats.durationSum)
            out.sample("navprefs_http_request_duration_seconds_count", ["route": route], stats.count)
        }
        out.family("navprefs_http_requests_in_flight", "gauge",
                   "Requests routed and handed to storage, not yet answered (this scrape left out).")
        out.sample("navprefs_http_requests_in_flight", max(0, requests.requestsInFlight - scrapesInFlight))

        out.family("navprefs_sse_subscribers", "gauge", "Event streams open now.")
        out.sample("navprefs_sse_subscribers", hub.subscriberCount)
        out.family("navprefs_sse_events_sent_total", "counter", "Events written to event streams (replayed and live).")
        out.sample("navprefs_sse_events_sent_total", hub.eventsSent)
        let (streams, answers) = transport.budgets.withLock { $0 }
        if let budget = streams {
            out.family("navprefs_sse_buffered_bytes", "gauge", "Bytes event streams hold unsent now.")
            out.sample("navprefs_sse_buffered_bytes", budget.held)
            out.family("navprefs_sse_buffer_total_limit_bytes", "gauge",
                       "Bytes all event streams may hold unsent (--sse-buffer-total-bytes); past it the fullest get a reset.")
            out.sample("navprefs_sse_buffer_total_limit_bytes", budget.limit)
            out.family("navprefs_sse_stream_buffer_limit_bytes", "gauge", "Bytes one event stream may hold unsent (--sse-stream-buffer-bytes).")
            out.sample("navprefs_sse_stream_buffer_limit_bytes", budget.perStreamLimit)
            out.family("navprefs_sse_socket_buffer_bytes", "gauge",
                       "The send buffer of each event stream's socket (--sse-socket-buffer-bytes; the kernel reserves twice it; 0: no sockets).")
            out.sample("navprefs_sse_socket_buffer_bytes", budget.socketBufferBytes)
            out.family("navprefs_sse_overflow_resets_total", "counter",
                       "Event streams whose unsent events gave way to a reset (their buffer or the total was full); they went on.")
            out.sample("navprefs_sse_overflow_resets_total", budget.replacements)
            out.family("navprefs_sse_streams_cut_total", "counter", "Event streams closed as too slow: still full at their next reset, having read nothing.")
            out.sample("navprefs_sse_streams_cut_total", budget.cuts)
        }

        if let answers {
            out.family("navprefs_http_large_answer_bytes", "gauge",
                       "Bytes of large answers (256 KiB or more) held until their clients read them.")
            out.sample("navprefs_http_large_answer_bytes", answers.held)
            out.family("navprefs_http_large_answer_limit_bytes", "gauge", "Bytes large answers may hold together (--max-buffered-answer-bytes).")
            out.sample("navprefs_http_large_answer_limit_bytes", answers.limit)
            out.family("navprefs_http_large_answers_refused_total", "counter", "Large answers replaced by 503 because the ones held filled the limit.")
            out.sample("navprefs_http_large_answers_refused_total", answers.refused)
        }
        out.family("navprefs_loop_body_limit_bytes", "gauge", "Bodies larger than this are handled off the event loop (--loop-body-bytes).")
        out.sample("navprefs_loop_body_limit_bytes", loopBodyBytes)
        out.family("navprefs_loop_read_limit_bytes", "gauge", "Bytes a read may take on the event loop before a reader takes it over (--loop-read-bytes; 0: the store never reads there).")
        out.sample("navprefs_loop_read_limit_bytes", loopReadBytes)
        out.family("navprefs_large_bodies_total", "counter", "Requests whose bodies were handled off the event loop (--loop-body-bytes).")
        out.sample("navprefs_large_bodies_total", largeWork.largeBodies)

        out.family("navprefs_store_errors_total", "counter", "Store operations that failed, by kind.")
        for kind in ["unavailable", "corrupted", "internal", "closed"] {
            out.sample("navprefs_store_errors_total", ["kind": kind], storeErrors.snapshot()[kind] ?? 0)
        }

        let process = ProcessMetrics.read()
        let processSamples: [(String, String, String, Double?)] = [
            ("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", process.residentBytes.map(Double.init)),
            ("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", process.virtualBytes.map(Double.init)),
            ("process_cpu_seconds_total", "counter", "User and system CPU time spent in seconds.", process.cpuSeconds),
            ("process_open_fds", "gauge", "Number of open file descriptors.", process.openFileDescriptors.map(Double.init)),
            ("process_max_fds", "gauge", "Maximum number of open file descriptors.", process.maxFileDescriptors.map(Double.init)),
            ("process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch in seconds.", process.startTimeSeconds),
        ]
        for (name, type, help, value) in processSamples {
            guard let value else { continue }
            out.family(name, type, help)
            out.sample(name, value)
        }
        out.family("navprefs_build_info", "gauge", "Always 1; the labels say which build this is.")
        out.sample("navprefs_build_info", ["version": BuildInfo.version, "swift": BuildInfo.swiftVersion], 1)

        var headers = HTTPHeaders()
        headers.add(HeaderName.contentType, "text/plain; version=0.0.4; charset=utf-8")
        headers.add(HeaderName.cacheControl, "no-store")
        return HTTPResponse(status: 200, headers: headers, bytes: Array(out.text.utf8))
    }
}
