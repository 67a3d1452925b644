/// A response to send: status, header fields and a body that is either complete or streamed.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: HTTPBody

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: HTTPBody = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), bytes: [UInt8]) {
        self.init(status: status, headers: headers, body: .bytes(bytes))
    }
}

/// The body of a response.
public enum HTTPBody: Sendable {
    /// A complete body, sent with a `Content-Length`.
    case bytes([UInt8])
    /// A body produced over time and sent chunked. `start` runs on the event-loop thread once
    /// the response headers are queued; it must not block. Keep the ``ResponseStream`` and write
    /// to it from any thread; an idle stream costs no CPU (its connection is suspended).
    case stream(start: @Sendable (ResponseStream) -> Void)
}
