/// One complete HTTP request as the server received it: the request line, the header
/// fields, the query arguments and the whole body.
///
/// A value, so that handlers can carry it across threads and tasks freely.
public struct HTTPRequest: Sendable {
    /// The method exactly as sent (`GET`, `POST`, or anything else a client invents).
    public var method: String
    /// The path without the query, percent-decoded by libmicrohttpd.
    public var path: String
    /// Query arguments in order; a key without `=` has a `nil` value.
    public var query: [(name: String, value: String?)]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The peer's address as text (`127.0.0.1`, `::1`), when known.
    public var remoteAddress: String?
    /// When the request line arrived, for latency measurement.
    public var receivedAt: ContinuousClock.Instant

    public init(
        method: String,
        path: String,
        query: [(name: String, value: String?)] = [],
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        remoteAddress: String? = nil,
        receivedAt: ContinuousClock.Instant = .now
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.receivedAt = receivedAt
    }

    /// The first value of the query argument `name`; `""` for a key given without a value.
    public func queryValue(_ name: String) -> String? {
        guard let item = query.first(where: { $0.name == name }) else { return nil }
        return item.value ?? ""
    }
}
