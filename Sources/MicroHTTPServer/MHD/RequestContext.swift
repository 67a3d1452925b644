import CMicroHTTPD
import Synchronization

/// Everything the server keeps about one request between libmicrohttpd's calls: created when
/// the request line has been parsed (MHD's URI log callback, which sees the target as sent),
/// released when MHD reports the request completed.
///
/// Safety (`@unchecked Sendable`): every stored `var` is read and written only on the event-loop
/// thread, inside libmicrohttpd callbacks or the loop; the only state other threads touch is
/// `handoff`, which is a `Mutex`.
final class RequestContext: @unchecked Sendable {
    enum Phase {
        /// The request line is in; the header fields are arriving.
        case awaitingHeaders
        /// A deferred admission is running; the connection is suspended and no body is read.
        case admitting
        /// The body is arriving.
        case receiving
        /// A deferred handler task is running; the connection is suspended until it answers.
        case waiting
        /// The response is queued (or the connection is being cut); nothing more to do.
        case answered
    }

    /// What a deferred task hands back to the event loop.
    enum Outcome {
        case admission(HTTPAdmission)
        case response(HTTPResponse)
    }

    /// The outcome of a deferred task, crossing from its thread to the event loop.
    enum Handoff {
        case pending
        case ready(Outcome)
        case taken
    }

    let connection: ConnectionHandle
    let id: Int
    let receivedAt: ContinuousClock.Instant
    /// The request target exactly as sent, split at the first `?`.
    let rawPath: String
    /// Why the target alone is refused (found before MHD decoded it), if it is.
    let targetRejection: HTTPRejection?
    /// Set once the header fields are in.
    var head: HTTPRequestHead?
    var framing = FramingCheck.Framing.none
    var body: [UInt8] = []
    /// This request's body limit (admission may set its own).
    var maxBodyBytes = 0
    /// Bytes of the server-wide body budget this request holds (see ``BodyBudget``).
    var reservedBodyBytes = 0
    var rejection: HTTPRejection?
    /// Admission's answer to a request without a body, sent on MHD's last call (keep-alive).
    var admissionAnswer: HTTPResponse?
    /// Bytes of a refused body read and thrown away so far.
    var discardedBytes = 0
    /// The body deadline passed and a 408 went out on the raw socket: drop the connection on
    /// MHD's next call for it.
    var cutOff = false
    var phase = Phase.awaitingHeaders
    let handoff = Mutex(Handoff.pending)

    init(connection: ConnectionHandle, id: Int, rawPath: String, targetRejection: HTTPRejection?) {
        self.connection = connection
        self.id = id
        self.rawPath = rawPath
        self.targetRejection = targetRejection
        self.receivedAt = .now
    }

    var isHead: Bool { head?.method == "HEAD" }

    /// Hands a deferred task's outcome to the event loop and resumes the connection.
    /// Returns `false` if an outcome was handed over already (for example a 503 at shutdown).
    @discardableResult
    func complete(with outcome: Outcome) -> Bool {
        handoff.withLock { handoff in
            guard case .pending = handoff else { return false }
            handoff = .ready(outcome)
            connection.resume()
            return true
        }
    }

    @discardableResult
    func complete(with response: HTTPResponse) -> Bool { complete(with: .response(response)) }

    /// Takes the handed-over outcome, once.
    func takeOutcome() -> Outcome? {
        handoff.withLock { handoff in
            guard case .ready(let outcome) = handoff else { return nil }
            handoff = .taken
            return outcome
        }
    }

    /// Makes the handoff ready for the next deferred task of this request (an admission may be
    /// followed by a deferred handler). Called on the loop thread before that task is queued.
    func rearmHandoff() {
        handoff.withLock { $0 = .pending }
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
