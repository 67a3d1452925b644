/// The application side of ``HTTPServer``.
///
/// A request meets the handler twice. ``admit(_:)`` runs as soon as the request line and header
/// fields are in, before any body byte is read and before `100 Continue` is sent: it decides
/// whether the body may come (and how large it may be), so that an unauthenticated client cannot
/// make the server buffer anything. ``handle(_:)`` runs once the whole body is in.
///
/// Both run on the event-loop thread, so they must not block: answer at once from memory, or hand
/// the work to a task with ``HTTPAdmission/deferred(_:)`` or ``HTTPHandlerResult/deferred(_:)``.
/// While a deferred task runs, its connection is suspended (nothing is read from it) and other
/// connections are served as usual.
public protocol HTTPHandler: Sendable {
    /// Decides, from the request line and header fields alone, whether the request may send its
    /// body. The default lets every request proceed with ``ServerConfiguration/maxBodyBytes``.
    ///
    /// Answering here (``HTTPAdmission/answer(_:)``) a request that has a body closes the
    /// connection after the response, because the body was never read; a client that sent
    /// `Expect: 100-continue` gets the final status and never `100 Continue`. A request without
    /// a body keeps its connection.
    func admit(_ head: HTTPRequestHead) -> HTTPAdmission

    func handle(_ request: HTTPRequest) -> HTTPHandlerResult

    /// The response for a request the server refused before it reached ``handle(_:)``: every
    /// refusal of the transport (framing, limits, deadlines, shutdown) comes here, once per
    /// request, so this is also the one place to log it. The default answers the refusals that
    /// have a ``RequestRejection`` equivalent through ``response(for:method:path:)`` and the
    /// others with a short plain-text body (plus `Retry-After` for 503).
    func response(for rejection: HTTPRejection, head: HTTPRequestHead) -> HTTPResponse

    /// The older form of ``response(for:head:)``, kept for handlers written against it; it only
    /// ever sees the four refusals ``RequestRejection`` can name. The default is a short
    /// plain-text body.
    func response(for rejection: RequestRejection, method: String, path: String) -> HTTPResponse
}

/// What a handler does with a request.
public enum HTTPHandlerResult: Sendable {
    /// The response is ready now.
    case immediate(HTTPResponse)
    /// The response needs work that may wait (storage, other services). The server runs the
    /// closure in its task group and sends what it returns.
    case deferred(@Sendable () async -> HTTPResponse)
}

/// Whether a request whose header fields are in may send its body (see ``HTTPHandler/admit(_:)``).
public enum HTTPAdmission: Sendable {
    /// Read the body, up to `maxBodyBytes` (`nil`, or anything above
    /// ``ServerConfiguration/maxBodyBytes``: that limit), then call ``HTTPHandler/handle(_:)``. A route that needs a few bytes should say so: a declared
    /// `Content-Length` above the limit is refused with 413 before the upload.
    case proceed(maxBodyBytes: Int? = nil)
    /// Answer without reading the body; the connection is closed after the response if the
    /// request had a body (declared or chunked), and kept otherwise.
    case answer(HTTPResponse)
    /// Decide later (a token lookup in storage, say). The connection is suspended meanwhile: no
    /// body byte is read and no `100 Continue` is sent until the closure returns its decision.
    case deferred(@Sendable () async -> HTTPAdmission)
}

/// Why the server refused a request before calling ``HTTPHandler/handle(_:)``.
///
/// Kept with its original four cases because applications switch over it exhaustively; every
/// refusal the server makes is an ``HTTPRejection``, which maps back to this type where it can
/// (``HTTPRejection/requestRejection``).
public enum RequestRejection: Sendable, Equatable {
    /// The body (declared or received) exceeds ``ServerConfiguration/maxBodyBytes``.
    case payloadTooLarge(limit: Int)
    /// Two `Content-Length` fields, or one that is not a plain decimal number
    /// (RFC 9112 §6.3: an unrecoverable framing error).
    case invalidContentLength
    /// `Content-Length` together with `Transfer-Encoding` (RFC 9112 §6.1: request smuggling risk).
    case contentLengthWithTransferEncoding
    /// The server is shutting down and takes no new work.
    case shuttingDown

    /// The HTTP status this rejection is answered with.
    public var status: Int {
        switch self {
        case .payloadTooLarge: 413
        case .invalidContentLength, .contentLengthWithTransferEncoding: 400
        case .shuttingDown: 503
        }
    }
}

/// Every reason the server refuses a request below the application, each answered through
/// ``HTTPHandler/response(for:head:)`` with ``status``.
///
/// A separate type from ``RequestRejection`` (whose cases it includes) so that adding refusals
/// does not break applications that switch over the older enum exhaustively.
public enum HTTPRejection: Sendable, Equatable {
    /// The body (declared or received) exceeds the request's limit: the one
    /// ``HTTPAdmission/proceed(maxBodyBytes:)`` set, else ``ServerConfiguration/maxBodyBytes``.
    case payloadTooLarge(limit: Int)
    /// Two `Content-Length` fields that disagree, or one that is not a plain decimal number
    /// (RFC 9112 §6.3).
    case invalidContentLength
    /// `Content-Length` together with `Transfer-Encoding` (RFC 9112 §6.1).
    case contentLengthWithTransferEncoding
    /// A header section libmicrohttpd 0.9.75 would misread: an obs-folded line (RFC 9112 §5.2),
    /// whitespace between a field name and its colon (§5.1), a field name that is not a token,
    /// or a control character in a field value. Left alone, the first two drop a field
    /// (`Content-Length`, say) and let the body be read as the next request.
    case malformedHeaderSection
    /// A request target libmicrohttpd would decode to something else than was sent: `%00`
    /// (it truncates the path or argument there).
    case invalidRequestTarget
    /// A `Transfer-Encoding` other than a single `chunked` (RFC 9112 §6.1: 501).
    case unsupportedTransferEncoding
    /// The body did not arrive within ``ServerConfiguration/bodyTimeout``.
    case requestTimeout
    /// The request target is longer than ``ServerConfiguration/maxTargetBytes``.
    case uriTooLong(limit: Int)
    /// The query has more arguments than ``ServerConfiguration/maxQueryArguments``.
    case tooManyQueryArguments(limit: Int)
    /// The request line and header section exceed ``ServerConfiguration/maxHeaderBytes``.
    case headersTooLarge(limit: Int)
    /// Bodies being received already hold ``ServerConfiguration/maxBufferedBodyBytes``; retry later.
    case bodyBufferFull
    /// The server is shutting down and takes no new work.
    case shuttingDown

    /// The HTTP status this rejection is answered with.
    public var status: Int {
        switch self {
        case .payloadTooLarge: 413
        case .invalidContentLength, .contentLengthWithTransferEncoding, .malformedHeaderSection, .invalidRequestTarget: 400
        case .unsupportedTransferEncoding: 501
        case .requestTimeout: 408
        case .uriTooLong, .tooManyQueryArguments: 414
        case .headersTooLarge: 431
        case .bodyBufferFull, .shuttingDown: 503
        }
    }

    /// A stable snake_case name for logs and metrics (`headers_too_large`, ...).
    public var kind: String {
        switch self {
        case .payloadTooLarge: "payload_too_large"
        case .invalidContentLength: "invalid_content_length"
        case .contentLengthWithTransferEncoding: "content_length_with_transfer_encoding"
        case .malformedHeaderSection: "malformed_header_section"
        case .invalidRequestTarget: "invalid_request_target"
        case .unsupportedTransferEncoding: "unsupported_transfer_encoding"
        case .requestTimeout: "request_timeout"
        case .uriTooLong: "uri_too_long"
        case .tooManyQueryArguments: "too_many_query_arguments"
        case .headersTooLarge: "headers_too_large"
        case .bodyBufferFull: "body_buffer_full"
        case .shuttingDown: "shutting_down"
        }
    }

    /// The same refusal as a ``RequestRejection``, for the four it can name.
    public var requestRejection: RequestRejection? {
        switch self {
        case .payloadTooLarge(let limit): .payloadTooLarge(limit: limit)
        case .invalidContentLength: .invalidContentLength
        case .contentLengthWithTransferEncoding: .contentLengthWithTransferEncoding
        case .shuttingDown: .shuttingDown
        default: nil
        }
    }

    /// Seconds a client should wait before retrying, for the refusals that are about load.
    public var retryAfterSeconds: Int? {
        switch self {
        case .bodyBufferFull, .shuttingDown: 1
        default: nil
        }
    }
}

extension HTTPHandler {
    public func admit(_ head: HTTPRequestHead) -> HTTPAdmission { .proceed() }

    public func response(for rejection: HTTPRejection, head: HTTPRequestHead) -> HTTPResponse {
        if let older = rejection.requestRejection {
            return response(for: older, method: head.method, path: head.path)
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; charset=utf-8")
        if let seconds = rejection.retryAfterSeconds { headers.add("Retry-After", String(seconds)) }
        return HTTPResponse(status: rejection.status, headers: headers, bytes: Array("\(rejection.kind)\n".utf8))
    }

    public func response(for rejection: RequestRejection, method: String, path: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; charset=utf-8")
        if case .shuttingDown = rejection { headers.add("Retry-After", "1") }
        return HTTPResponse(status: rejection.status, headers: headers, bytes: Array("\(rejection)\n".utf8))
    }
}
