import CMicroHTTPD
import Synchronization

/// Everything the server keeps about one request between libmicrohttpd's calls: created when
/// the request line has been parsed (MHD's URI log callback, which sees the target as sent),
/// released when MHD reports the request completed.
///
/// Safety (`@unchecked Sendable`): every stored `var` is read and written only on the event-loop
/// thread, inside libmicrohttpd callbacks or the loop; other threads reach a request only
/// through its one-shot responders (``OneShot``, a `Mutex`), and through `connection`, whose
/// resume is thread-safe.
final class RequestContext: @unchecked Sendable {
    let connection: ConnectionHandle
    let receivedAt: ContinuousClock.Instant
    /// The request target exactly as sent, split at the first `?`.
    let rawPath: String
    /// Why the target alone is refused (found before MHD decoded it), if it is.
    let targetRejection: HTTPRejection?
    var phases: RequestPhases
    /// Bytes of the server-wide body budget this request holds (see ``BodyBudget``).
    var reservedBodyBytes = 0
    /// The responder of the handler, or of a later admission, while one is out.
    var response: OneShot<HTTPResponse>?
    var admission: OneShot<HTTPAdmission>?
    /// The answer went out on the raw socket (a 408, or a refusal libmicrohttpd made itself):
    /// drop the connection on MHD's next call for it.
    var cutOff = false

    init(connection: ConnectionHandle, rawPath: String, targetRejection: HTTPRejection?, limits: RequestPhases.Limits) {
        self.connection = connection
        self.rawPath = rawPath
        self.targetRejection = targetRejection
        self.receivedAt = .now
        phases = RequestPhases(limits: limits)
    }

    var isHead: Bool { phases.head?.method == "HEAD" }

    /// The head to answer a refusal for: the one received, or what is known before it.
    var headForRefusal: HTTPRequestHead {
        phases.head ?? HTTPRequestHead(method: "", path: rawPath, receivedAt: receivedAt, rawPath: rawPath)
    }
}

/// The bytes all request bodies being received hold together, against
/// ``ServerConfiguration/maxBufferedBodyBytes``. A declared length is reserved whole when
/// admission lets the body come; a chunked body reserves as it arrives. Everything a request
/// holds is released when its body goes to the handler or the request ends otherwise.
///
/// An atomic only so that ``HTTPServer/bufferedBodyBytes`` can read it from any thread: it is
/// changed on the event-loop thread alone.
final class BodyBudget: Sendable {
    let limit: Int
    let held = Atomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    /// Reserves `bytes` for `context`, unless that would exceed the limit.
    func reserve(_ bytes: Int, for context: RequestContext) -> Bool {
        guard bytes > 0 else { return true }
        let current = held.load(ordering: .relaxed)
        guard bytes <= limit - current else { return false }
        held.add(bytes, ordering: .relaxed)
        context.reservedBodyBytes += bytes
        return true
    }

    func release(_ context: RequestContext) {
        guard context.reservedBodyBytes > 0 else { return }
        held.subtract(context.reservedBodyBytes, ordering: .relaxed)
        context.reservedBodyBytes = 0
    }
}
