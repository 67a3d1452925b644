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
final class RequestContext: RequestExchange, @unchecked Sendable {
    let connection: ConnectionHandle
    let receivedAt: ContinuousClock.Instant
    /// The request target exactly as sent, split at the first `?`.
    let rawPath: String
    /// Why the target alone is refused (found before MHD decoded it), if it is.
    let targetRejection: HTTPRejection?
    var phases: RequestPhases
    /// Bytes of the server-wide body budget this request holds (see ``BodyBudget``).
    var reservedBodyBytes = 0
    /// The one-shot of the handler's answer, or of a later admission, while one is out.
    var awaitedResponse: OneShot<HTTPResponse>?
    var awaitedAdmission: OneShot<HTTPAdmission>?
    /// The answer went out on the raw socket (a 408, or a refusal libmicrohttpd made itself):
    /// drop the connection on MHD's next call for it.
    var cutOff = false
    /// Whether the request line said HTTP/1.1 (libmicrohttpd then frames a streamed body in chunks).
    var isHTTP11 = false
    /// The answer handed on (not a stream), for the completion to report if it is lost.
    var answer: AnswerNote?
    /// The server wrote `answer` to the socket itself, whole (``AnswerOnSocket``).
    var answerDelivered = false

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

/// A socket request's share of the body budget lives in its context.
extension BodyBudget {
    func reserve(_ bytes: Int, for context: RequestContext) -> Bool { reserve(bytes, holding: &context.reservedBodyBytes) }
    func release(_ context: RequestContext) { release(holding: &context.reservedBodyBytes) }
}

/// What the completion of a request needs to know of its answer: the status and the fields,
/// never the body (libmicrohttpd holds its own copy while it sends).
struct AnswerNote {
    let status: Int
    let headers: HTTPHeaders

    init(_ response: HTTPResponse) {
        status = response.status
        headers = response.headers
    }
}
