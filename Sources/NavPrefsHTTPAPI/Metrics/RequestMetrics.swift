import Synchronization

/// Counts of the requests served, by route template, method and status, with a latency
/// histogram per route, and the requests in flight. Recorded on the event loop for every
/// answer, so recording is one lock and one dictionary lookup by route.
final class RequestMetrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds: from well under a millisecond (answers
    /// from memory) to seconds (a write waiting for a busy disk).
    static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    struct MethodStatus: Hashable {
        let method: String
        let status: Int
    }

    struct RouteStats {
        var requests: [MethodStatus: Int] = [:]
        /// Requests per bucket (not cumulative; summed when written out), plus one for +Inf.
        var buckets = [Int](repeating: 0, count: RequestMetrics.bucketBounds.count + 1)
        var durationSum: Double = 0
        var count = 0
    }

    private let routes = Mutex<[String: RouteStats]>([:])
    private let inFlight = Atomic<Int>(0)

    /// A request was routed and its answer may take a while (deferred work).
    func started() { inFlight.add(1, ordering: .relaxed) }
    func finished() { inFlight.subtract(1, ordering: .relaxed) }
    var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    func record(route: String, method: String, status: Int, microseconds: Int64) {
        let seconds = Double(microseconds) / 1_000_000
        let bucket = Self.bucketBounds.firstIndex { seconds <= $0 } ?? Self.bucketBounds.count
        routes.withLock { routes in
            routes[route, default: RouteStats()].record(MethodStatus(method: method, status: status), seconds, bucket)
        }
    }

    func snapshot() -> [String: RouteStats] { routes.withLock { $0 } }
}

extension RequestMetrics.RouteStats {
    mutating func record(_ key: RequestMetrics.MethodStatus, _ seconds: Double, _ bucket: Int) {
        requests[key, default: 0] += 1
        buckets[bucket] += 1
        durationSum += seconds
        count += 1
    }
}
