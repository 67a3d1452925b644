/// One complete HTTP request as the server received it: its head (the request line, the header
/// fields, the query arguments, see ``HTTPRequestHead``) and the whole body.
///
/// A value, so that handlers can carry it across threads and tasks freely. The head is the one
/// admission saw, kept as it is: its fields are forwarded here, not copied.
public struct HTTPRequest: Sendable {
    /// The request line and header fields, as admission saw them.
    public var head: HTTPRequestHead
    public var body: [UInt8]
    /// What admission let through with the request (``HTTPAdmission/proceed(maxBodyBytes:admissionContext:)``):
    /// the handler takes its decision from here instead of deciding again.
    public var admissionContext: (any Sendable)?

    /// The method exactly as sent (`GET`, `POST`, or anything else a client invents).
    public var method: String {
        get { head.method }
        set { head.method = newValue }
    }
    /// The path without the query, percent-decoded by libmicrohttpd. A `%2F` becomes `/` here,
    /// so a router that allows `/` inside one segment must split ``rawPath`` instead.
    public var path: String {
        get { head.path }
        set { head.path = newValue }
    }
    /// The path without the query exactly as sent, still percent-encoded. Split it on `/` and
    /// decode each segment (``HTTPRequestHead/decodedSegments(ofRawPath:)``) to keep an encoded
    /// `/` inside its segment. A target containing `%00` never gets this far (400).
    public var rawPath: String {
        get { head.rawPath }
        set { head.rawPath = newValue }
    }
    /// Query arguments in order; a key without `=` has a `nil` value.
    public var query: [(name: String, value: String?)] {
        get { head.query }
        set { head.query = newValue }
    }
    public var headers: HTTPHeaders {
        get { head.headers }
        set { head.headers = newValue }
    }
    /// The peer's address as text (`127.0.0.1`, `::1`), when known.
    public var remoteAddress: String? {
        get { head.remoteAddress }
        set { head.remoteAddress = newValue }
    }
    /// When the request line arrived, for latency measurement.
    public var receivedAt: ContinuousClock.Instant {
        get { head.receivedAt }
        set { head.receivedAt = newValue }
    }

    public init(head: HTTPRequestHead, body: [UInt8] = [], admissionContext: (any Sendable)? = nil) {
        self.head = head
        self.body = body
        self.admissionContext = admissionContext
    }

    /// - Parameter rawPath: the path as sent; `nil` takes `path` (for requests built in tests).
    public init(
        method: String,
        path: String,
        query: [(name: String, value: String?)] = [],
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        remoteAddress: String? = nil,
        receivedAt: ContinuousClock.Instant = .now,
        rawPath: String? = nil
    ) {
        self.init(head: HTTPRequestHead(method: method, path: path, query: query, headers: headers,
                                        remoteAddress: remoteAddress, receivedAt: receivedAt, rawPath: rawPath),
                  body: body)
    }

    /// The first value of the query argument `name`; `""` for a key given without a value.
    public func queryValue(_ name: String) -> String? { head.queryValue(name) }
}

/// A request whose request line and header fields are in and whose body has not been read:
/// what ``HTTPHandler/admit(_:)`` decides on, and what a refusal is answered for.
///
/// A value with its fields in one shared, copy-on-write box: a head is copied at every step of
/// a request (the request phases, the request, the route, the log), and a copy is then one
/// reference count instead of one per field (profiles of a GET showed those copies first).
public struct HTTPRequestHead: Sendable {
    /// Safety (`@unchecked Sendable`): a box is changed only while uniquely referenced (see
    /// `fields`'s accessors); once shared it is never changed, so threads only read it.
    ///
    /// Why `@exclusivity(unchecked)`: the same rule makes two overlapping accesses impossible (a
    /// change needs the only reference), so the run-time check of each read proves nothing; a
    /// GET reads the fields about 20 times, and the checks were 1.2 % of its CPU (perf, main 98a31fb).
    private final class Fields: @unchecked Sendable {
        @exclusivity(unchecked) var method: String
        @exclusivity(unchecked) var path: String
        @exclusivity(unchecked) var rawPath: String
        @exclusivity(unchecked) var query: [(name: String, value: String?)]
        @exclusivity(unchecked) var headers: HTTPHeaders
        @exclusivity(unchecked) var remoteAddress: String?
        @exclusivity(unchecked) var receivedAt: ContinuousClock.Instant

        init(method: String, path: String, rawPath: String, query: [(name: String, value: String?)], headers: HTTPHeaders,
             remoteAddress: String?, receivedAt: ContinuousClock.Instant) {
            self.method = method
            self.path = path
            self.rawPath = rawPath
            self.query = query
            self.headers = headers
            self.remoteAddress = remoteAddress
            self.receivedAt = receivedAt
        }

        func copy() -> Fields {
            Fields(method: method, path: path, rawPath: rawPath, query: query, headers: headers, remoteAddress: remoteAddress,
                   receivedAt: receivedAt)
        }
    }

    private var fields: Fields

    /// The box, made this value's own before a change.
    private var unique: Fields {
        mutating get {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            return fields
        }
    }

    /// The method exactly as sent.
    public var method: String {
        get { fields.method }
        set { unique.method = newValue }
    }
    /// The path without the query, percent-decoded (see ``HTTPRequest/path``).
    public var path: String {
        get { fields.path }
        set { unique.path = newValue }
    }
    /// The path without the query exactly as sent (see ``HTTPRequest/rawPath``).
    public var rawPath: String {
        get { fields.rawPath }
        set { unique.rawPath = newValue }
    }
    /// Query arguments in order; a key without `=` has a `nil` value. Empty for a request
    /// refused for having too many of them.
    public var query: [(name: String, value: String?)] {
        get { fields.query }
        set { unique.query = newValue }
    }
    public var headers: HTTPHeaders {
        get { fields.headers }
        _modify { yield &unique.headers }
    }
    /// The peer's address as text (`127.0.0.1`, `::1`), when known.
    public var remoteAddress: String? {
        get { fields.remoteAddress }
        set { unique.remoteAddress = newValue }
    }
    /// When the request line arrived.
    public var receivedAt: ContinuousClock.Instant {
        get { fields.receivedAt }
        set { unique.receivedAt = newValue }
    }

    public init(
        method: String,
        path: String,
        query: [(name: String, value: String?)] = [],
        headers: HTTPHeaders = HTTPHeaders(),
        remoteAddress: String? = nil,
        receivedAt: ContinuousClock.Instant = .now,
        rawPath: String? = nil
    ) {
        fields = Fields(method: method, path: path, rawPath: rawPath ?? path, query: query, headers: headers,
                        remoteAddress: remoteAddress, receivedAt: receivedAt)
    }

    /// The first value of the query argument `name`; `""` for a key given without a value.
    public func queryValue(_ name: String) -> String? {
        guard let item = query.first(where: { $0.name == name }) else { return nil }
        return item.value ?? ""
    }

    /// The segments of a raw path, each percent-decoded on its own, so that `%2F` stays inside
    /// its segment: `/a/k%2Fx` gives `["a", "k/x"]`. `nil` when an escape is malformed, decodes
    /// to NUL, or the bytes are not UTF-8. The leading `/` yields no empty first segment.
    public static func decodedSegments(ofRawPath rawPath: String) -> [String]? {
        var segments: [String] = []
        var parts = rawPath.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)[...]
        if rawPath.utf8.first == UInt8(ascii: "/") { parts = parts.dropFirst() }
        for part in parts {
            guard let decoded = PercentDecoding.decode(part) else { return nil }
            segments.append(decoded)
        }
        return segments
    }
}
