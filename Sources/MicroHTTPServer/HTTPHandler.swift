/// The application side of ``HTTPServer``.
///
/// `handle(_:)` runs on the event-loop thread, so it must not block: answer at once from memory,
/// or hand the work to a task with ``HTTPHandlerResult/deferred(_:)``. While a deferred task
/// runs, its connection is suspended and other connections are served as usual.
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest) -> HTTPHandlerResult

    /// The response for a request the server refused before it reached ``handle(_:)``.
    /// The default is a short plain-text body; applications usually answer in their own error format.
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

/// Why the server refused a request before calling the handler.
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

extension HTTPHandler {
    public func response(for rejection: RequestRejection, method: String, path: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; charset=utf-8")
        return HTTPResponse(status: rejection.status, headers: headers, bytes: Array("\(rejection)\n".utf8))
    }
}
