import CMicroHTTPD
import Synchronization

/// Everything the server keeps about one request between libmicrohttpd's calls of the access
/// handler: created on the first call (headers complete), released when MHD reports completion.
///
/// Safety (`@unchecked Sendable`): every stored `var` is read and written only on the event-loop
/// thread, inside libmicrohttpd callbacks; the only state other threads touch is `handoff`,
/// which is a `Mutex`.
final class RequestContext: @unchecked Sendable {
    enum Phase {
        /// Headers and body are arriving.
        case receiving
        /// A deferred task is running; the connection is suspended until it hands back a response.
        case waiting
        /// The response is queued; nothing more to do.
        case answered
    }

    /// The response a deferred task hands back, crossing from its thread to the event loop.
    enum Handoff {
        case pending
        case ready(HTTPResponse)
        case taken
    }

    let connection: ConnectionHandle
    let id: Int
    let method: String
    let path: String
    let receivedAt: ContinuousClock.Instant
    var headers: HTTPHeaders
    var body: [UInt8] = []
    var rejection: RequestRejection?
    /// Bytes of an oversized body read and thrown away so far.
    var discardedBytes = 0
    var phase = Phase.receiving
    let handoff = Mutex(Handoff.pending)

    init(connection: ConnectionHandle, id: Int, method: String, path: String, headers: HTTPHeaders) {
        self.connection = connection
        self.id = id
        self.method = method
        self.path = path
        self.headers = headers
        self.receivedAt = .now
    }

    /// Hands a deferred task's response to the event loop and resumes the connection.
    /// Returns `false` if a response was handed over already (for example a 503 at shutdown).
    @discardableResult
    func complete(with response: HTTPResponse) -> Bool {
        handoff.withLock { handoff in
            guard case .pending = handoff else { return false }
            handoff = .ready(response)
            connection.resume()
            return true
        }
    }

    /// Takes the handed-over response, once.
    func takeResponse() -> HTTPResponse? {
        handoff.withLock { handoff in
            guard case .ready(let response) = handoff else { return nil }
            handoff = .taken
            return response
        }
    }
}
