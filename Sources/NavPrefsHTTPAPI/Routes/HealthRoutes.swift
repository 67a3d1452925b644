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
/// the store answers, and no shutdown has begun).
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
            try await store.ping()
            guard !readiness.isShuttingDown else { return Self.shuttingDown.response(instance: "/readyz") }
            return Self.status("ready")
        }
    }

    private static func status(_ text: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        headers.add("Cache-Control", "no-store")
        return HTTPResponse(status: 200, headers: headers, bytes: Array("{\"status\":\"\(text)\"}\n".utf8))
    }
}
