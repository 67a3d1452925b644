import MicroHTTPServer

/// Counts the answer in `/metrics` (``RequestMetrics``): its route, method, status and time.
///
/// After the steps that add fields, once the answer is final: what it counts is what leaves.
struct MetricsStep: ResponseStep {
    let metrics: RequestMetrics

    func apply(to response: inout HTTPResponse, _ context: ResponseContext) {
        metrics.record(route: context.route, method: context.method, status: response.status, microseconds: context.microseconds)
    }
}
