/// A response to send: status, header fields and a body that is either complete or streamed.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: HTTPBody
    /// A large body moved into memory of its own by the thread that answered (``AnswerBudget``);
    /// `body` is then empty.
    var prepared: PreparedBody?
    /// Set instead of a body that did not fit ``AnswerBudget``: the server answers this refusal.
    var refusal: HTTPRejection?

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
    /// Whether it is a ``stream(start:)``.
    var isStream: Bool {
        if case .stream = self { true } else { false }
    }

    /// A complete body, sent with a `Content-Length`.
    case bytes([UInt8])
    /// A body produced over time and sent chunked. `start` runs on the event-loop thread once
    /// the response headers are queued; it must not block. Keep the ``ResponseStream`` and write
    /// to it from any thread; an idle stream costs no CPU (its connection is suspended).
    case stream(start: @Sendable (ResponseStream) -> Void)
    /// No body, as a 304 (Not Modified) never has one. `representationLength` is the length of
    /// the body a 200 would carry: RFC 9110 §8.6 lets a 304 repeat it in `Content-Length`, and
    /// send no other length; `nil` sends none (the connection then closes after the answer, the
    /// only way libmicrohttpd 0.9.75 sends a head without any framing).
    case omitted(representationLength: Int?)
}

extension HTTPResponse {
    /// A 304 (Not Modified) with `headers` (its ETag, and what else the 200 would carry that
    /// caches update, RFC 9110 §15.4.5); `representationLength` as in ``HTTPBody/omitted(representationLength:)``.
    public static func notModified(headers: HTTPHeaders, representationLength: Int?) -> HTTPResponse {
        HTTPResponse(status: 304, headers: headers, body: .omitted(representationLength: representationLength))
    }
}
