/// The application side of ``HTTPServer``.
///
/// A request meets the handler twice, both times on the event-loop thread, which must never
/// block: ``admit(_:)`` as soon as the request line and header fields are in, before any body
/// byte is read and before `100 Continue` is sent, so that an unauthenticated client cannot make
/// the server buffer anything; then ``handle(_:responder:)`` once the whole body is in, with
/// whatever admission let through (its ``HTTPAdmission/proceed(maxBodyBytes:admissionContext:)`` context),
/// so nothing admission decided is decided again.
///
/// A handler answers through the ``HTTPResponder`` it is given, at once or later from any
/// thread (the thread that did the work). While it has not answered, the connection is
/// suspended: nothing is read from it and other connections are served as usual.
public protocol HTTPHandler: Sendable {
    /// Decides, from the request line and header fields alone, whether the request may send its
    /// body, and what the handler will need of that decision (its admission context).
    ///
    /// Answering here (``HTTPAdmission/answer(_:)``) a request that announced a body closes the
    /// connection after the response, because the body was never read; a client that sent
    /// `Expect: 100-continue` gets the final status and never `100 Continue`. A request without
    /// a body keeps its connection.
    func admit(_ head: HTTPRequestHead) -> HTTPAdmission

    /// Answers `request` through `responder`, exactly once, now or later.
    func handle(_ request: HTTPRequest, responder: HTTPResponder)

    /// The response for a request the server refused before it reached ``handle(_:responder:)``:
    /// every refusal of the transport (framing, limits, deadlines, shutdown, and the refusals
    /// libmicrohttpd makes itself) comes here, once per request, so this is also the one place
    /// to log it. The default answers a short plain-text body (plus `Retry-After` for 503).
    func response(for rejection: HTTPRejection, head: HTTPRequestHead) -> HTTPResponse

    /// An answer the handler made (status and header fields) never reached the client whole:
    /// the connection failed or was closed before it went out. Streams are left out (a client
    /// leaving one is how it ends). Called once, on the event-loop thread; the default does
    /// nothing. Where an application logs that the client aborted, after it logged the status.
    func answerUndelivered(status: Int, headers: HTTPHeaders, head: HTTPRequestHead)

    /// A turn of the event loop begins, on its thread: every handler call until ``turnEnded()``
    /// comes from this thread (one run of libmicrohttpd over the ready connections; one request
    /// on the in-memory transport). Work a handler starts in the turn may wait for its end
    /// (a store that commits the turn's writes once). The default does nothing.
    func turnBegan()

    /// The turn ended (libmicrohttpd's run returned): what the handler held for it may be
    /// finished now, on this thread, without waiting for another. The default does nothing.
    func turnEnded()

    /// The event loop starts, on its thread; `wake` makes it run a turn soon (from any thread):
    /// a handler that keeps work open past a turn's end uses it to have it finished. The
    /// default does nothing.
    func eventLoopStarted(wake: @escaping @Sendable () -> Void)

    /// The event loop ran its last turn, on its thread: nothing may be held for a turn any more.
    /// The default does nothing.
    func eventLoopStopped()
}

/// Whether a request whose header fields are in may send its body (see ``HTTPHandler/admit(_:)``).
public enum HTTPAdmission: Sendable {
    /// Read the body, up to `maxBodyBytes` (`nil`, or anything above
    /// ``ServerConfiguration/maxBodyBytes``: that limit), then call
    /// ``HTTPHandler/handle(_:responder:)`` with `admissionContext` in ``HTTPRequest/admissionContext``. A route that
    /// needs a few bytes should say so: a declared `Content-Length` above the limit is refused
    /// with 413 before the upload.
    case proceed(maxBodyBytes: Int? = nil, admissionContext: (any Sendable)? = nil)
    /// Answer without reading the body; the connection is closed after the response if the
    /// request announced a body, and kept otherwise.
    case answer(HTTPResponse)
    /// Decide later (a token looked up in storage, say): the closure runs on the event loop and
    /// hands its decision to the responder, now or from another thread. The connection is
    /// suspended meanwhile: no body byte is read and no `100 Continue` is sent.
    case later(@Sendable (HTTPAdmissionResponder) -> Void)
}

/// Every reason the server refuses a request below the application, each answered through
/// ``HTTPHandler/response(for:head:)`` with ``status``: the transport's own checks and the
/// refusals libmicrohttpd makes itself, which the server answers in its place.
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
    /// Large answers held unsent already fill ``ServerConfiguration/maxBufferedAnswerBytes``; retry later.
    case answerBufferFull
    /// A chunked body whose framing is broken (a chunk size that is not hex, a missing line end).
    case malformedChunkedBody
    /// A chunk's size line (its extensions included) longer than the connection's buffer, about
    /// `limit` bytes: it can never be read whole (RFC 9112 §7.1.1 lets a server limit them).
    case chunkLineTooLong(limit: Int)
    /// A protocol version the server does not speak (HTTP/2 sent as HTTP/1 text, HTTP/0.9...).
    case httpVersionNotSupported
    /// An HTTP/1.1 request without `Host`, or any request with more than one (RFC 9112 §3.2).
    case invalidHost
    /// The server is shutting down and takes no new work.
    case shuttingDown

    /// The HTTP status this rejection is answered with.
    public var status: Int {
        switch self {
        case .payloadTooLarge: 413
        case .invalidContentLength, .contentLengthWithTransferEncoding, .malformedHeaderSection, .invalidRequestTarget, .invalidHost, .malformedChunkedBody,
             .chunkLineTooLong: 400
        case .unsupportedTransferEncoding: 501
        case .httpVersionNotSupported: 505
        case .requestTimeout: 408
        case .uriTooLong, .tooManyQueryArguments: 414
        case .headersTooLarge: 431
        case .bodyBufferFull, .answerBufferFull, .shuttingDown: 503
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
        case .answerBufferFull: "answer_buffer_full"
        case .invalidHost: "invalid_host"
        case .malformedChunkedBody: "malformed_chunked_body"
        case .chunkLineTooLong: "chunk_line_too_long"
        case .httpVersionNotSupported: "http_version_not_supported"
        case .shuttingDown: "shutting_down"
        }
    }

    /// Seconds a client should wait before retrying, for the refusals that are about load.
    public var retryAfterSeconds: Int? {
        switch self {
        case .bodyBufferFull, .answerBufferFull, .shuttingDown: 1
        default: nil
        }
    }
}

extension HTTPHandler {
    public func admit(_ head: HTTPRequestHead) -> HTTPAdmission { .proceed() }

    public func answerUndelivered(status: Int, headers: HTTPHeaders, head: HTTPRequestHead) {}

    public func turnBegan() {}

    public func turnEnded() {}

    public func eventLoopStarted(wake: @escaping @Sendable () -> Void) {}

    public func eventLoopStopped() {}

    public func response(for rejection: HTTPRejection, head: HTTPRequestHead) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(HeaderName.contentType, "text/plain; charset=utf-8")
        if let seconds = rejection.retryAfterSeconds { headers.add(HeaderName.retryAfter, String(seconds)) }
        return HTTPResponse(status: rejection.status, headers: headers, bytes: Array("\(rejection.kind)\n".utf8))
    }
}
