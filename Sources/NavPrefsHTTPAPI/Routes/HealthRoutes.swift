import MicroHTTPServer
import NavPrefsStore
import Synchronization

/// Whether the service takes new work: false from the start of a shutdown, so that load
/// balancers stop sending requests before the listener closes.
final class Readiness: Sendable {
    private let shuttingDown = Atomic<Bool>(false)

    func beginShutdown() { shuttingDown.store(true, ordering: .releasing) }
    var isShuttingDown: Bool { shuttingDown.load(ordering: .acquiring) }
}

/// Liveness (`/healthz`: the event loop answers, touches no storage) and readiness (`/readyz`:
/// no shutdown has begun; `ready` while the store answers, `degraded` while it does not).
///
/// Why a store that does not answer is not a 503: every instance shares it, so taking this one
/// out of the load balancer helps nobody, and while PostgreSQL fails over an instance still
/// answers what it can (liveness, cached reads) and each failed call says 503 itself. A probe
/// that flapped with the database would have orchestrators restart healthy processes.
struct HealthRoutes {
    let store: any Store
    let readiness: Readiness

    var routes: [Route] {
        [
            Route("GET", "/healthz") { _ throws(APIError) in .immediate(Self.status("ok")) },
            Route("GET", "/readyz") { _ throws(APIError) in try ready() },
        ]
    }

    private static let shuttingDown = APIError(.shuttingDown, "The server is shutting down; send requests to another instance.",
                                               headers: [("Retry-After", "1")])

    private func ready() throws(APIError) -> APIResult {
        guard !readiness.isShuttingDown else { throw Self.shuttingDown }
        let store = self.store, readiness = self.readiness
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let outcome = await StoreProbe.ping(store, within: Self.pingDeadline)
            guard !readiness.isShuttingDown else { return Self.shuttingDown.response(instance: "/readyz") }
            return Self.status(outcome == .answered ? "ready" : "degraded")
        }
    }

    /// Below the 1 s timeout that probes commonly use.
    static let pingDeadline: Duration = .milliseconds(800)

    private static func status(_ text: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        headers.add("Cache-Control", "no-store")
        return HTTPResponse(status: 200, headers: headers, bytes: Array("{\"status\":\"\(text)\"}\n".utf8))
    }
}
