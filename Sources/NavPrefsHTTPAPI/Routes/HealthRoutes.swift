import MicroHTTPServer
import NavPrefsStore
import Synchronization

/// Whether the service takes new work: false from the start of a shutdown, so that load
/// balancers stop sending requests before the listener closes, and for good once the store was
/// found damaged (SQLite's `SQLITE_CORRUPT` or `SQLITE_NOTADB` on a read or a write, PostgreSQL's
/// `data_corrupted`, stored data that is not what the store wrote): such a store never answers
/// ready again; a restart refuses it at start (its integrity check) until it is restored.
final class Readiness: Sendable {
    private let shuttingDown = Atomic<Bool>(false)
    private let damage = Mutex<String?>(nil)

    func beginShutdown() { shuttingDown.store(true, ordering: .releasing) }
    var isShuttingDown: Bool { shuttingDown.load(ordering: .acquiring) }

    /// Records that the store is damaged (the first reason found is kept); `true` the first time.
    @discardableResult
    func storeDamaged(_ reason: String) -> Bool {
        damage.withLock { found in
            guard found == nil else { return false }
            found = String(reason.prefix(300))
            return true
        }
    }

    /// Why the store is damaged, once it was found so.
    var storeDamage: String? { damage.withLock { $0 } }
}

/// Liveness (`/healthz`: the event loop answers, touches no storage) and readiness (`/readyz`:
/// no shutdown has begun and the store was not found damaged; `ready` while the store answers,
/// `degraded` while it does not).
///
/// Why a store that does not answer is not a 503: every instance shares it, so taking this one
/// out of the load balancer helps nobody, and while PostgreSQL fails over an instance still
/// answers what it can (liveness, cached reads) and each failed call says 503 itself. A probe
/// that flapped with the database would have orchestrators restart healthy processes.
struct HealthRoutes: RouteCollection {
    let store: any Store
    let readiness: Readiness
    /// Where the ping and its deadline run (``RequestTaskExecutor``).
    let tasks: any TaskExecutor

    var routes: [Route] {
        [
            Route(.get, "/healthz", .public, .reads) { _ throws(APIError) in .immediate(Self.status("ok")) },
            Route(.get, "/readyz", .public, .reads) { _ throws(APIError) in try ready() },
        ]
    }

    private static let shuttingDown = APIError(.shuttingDown, "The server is shutting down; send requests to another instance.",
                                               headers: [(HeaderName.retryAfter, "1")])

    private func ready() throws(APIError) -> APIResult {
        guard !readiness.isShuttingDown else { throw Self.shuttingDown }
        if let damage = readiness.storeDamage { throw Self.damaged(damage) }
        let store = self.store, readiness = self.readiness, tasks = self.tasks
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let outcome = await StoreProbe.ping(store, within: Self.pingDeadline, on: tasks)
            guard !readiness.isShuttingDown else { return Self.shuttingDown.response(instance: "/readyz") }
            if case .damaged(let reason) = outcome { readiness.storeDamaged(reason) }
            if let damage = readiness.storeDamage { return Self.damaged(damage).response(instance: "/readyz") }
            return Self.status(outcome == .answered ? "ready" : "degraded")
        }
    }

    /// Not ready, for good: what was found, and what to do.
    static func damaged(_ reason: String) -> APIError {
        APIError(.storageDamaged, "The store's data is damaged (\(reason)); this instance serves nothing that needs it until the store "
                    + "is restored from a backup and the service restarted (docs/operations.md, \"Damaged files\").")
    }

    /// Below the 1 s timeout that probes commonly use.
    static let pingDeadline: Duration = .milliseconds(800)

    private static func status(_ text: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(HeaderName.contentType, "application/json")
        headers.add(HeaderName.cacheControl, "no-store")
        return HTTPResponse(status: 200, headers: headers, bytes: Array("{\"status\":\"\(text)\"}\n".utf8))
    }
}
