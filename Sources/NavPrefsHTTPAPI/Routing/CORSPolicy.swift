import MicroHTTPServer

/// Which web origins may call the API from a browser (CORS), e.g. a page on another origin
/// opening an `EventSource` (without `Access-Control-Allow-Origin` it fails for good).
public struct CORSPolicy: Sendable, Equatable {
    /// Allowed origins (`https://app.example`); `*` allows every origin.
    public let origins: Set<String>

    public static let none = CORSPolicy(origins: [])

    public init(origins: Set<String>) { self.origins = origins }

    /// Parses a comma-separated list (`*` alone allows any origin).
    public init(parsing text: String) {
        origins = Set(HTTPHeaders([("Origins", text)]).listMembers(for: "Origins").map(String.init))
    }

    /// The fields of an answer a page may read beyond the ones every page may (the Fetch
    /// standard's safelist): what a client of this API acts on.
    private static let exposed = [HeaderName.eTag, HeaderName.xRequestID, HeaderName.retryAfter, HeaderName.allow,
                                  HeaderName.wwwAuthenticate, HeaderName.location, HeaderName.idempotentReplayed].joined(separator: ", ")
    /// The fields a page may send: what the API reads.
    private static let allowedInRequests = [HeaderName.authorization, HeaderName.contentType, HeaderName.ifMatch, HeaderName.ifNoneMatch,
                                            HeaderName.lastEventID, HeaderName.xRequestID, HeaderName.idempotencyKey].joined(separator: ", ")

    func allows(_ origin: String) -> Bool { origins.contains("*") || origins.contains(origin) }

    /// Adds the headers that let the page at `origin` read `response`.
    func decorate(_ response: inout HTTPResponse, origin: String) {
        guard allows(origin) else { return }
        // The origin itself rather than `*`: correct for credentialed requests too, with Vary
        // so caches keep answers for different origins apart.
        response.headers.add(HeaderName.accessControlAllowOrigin, origin)
        response.headers.add(HeaderName.vary, HeaderName.origin)
        response.headers.add(HeaderName.accessControlExposeHeaders, Self.exposed)
    }

    /// The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`) for a resource
    /// that supports `methods`.
    func preflight(origin: String, methods: [String]) -> HTTPResponse {
        var response = HTTPResponse(status: 204)
        decorate(&response, origin: origin)
        response.headers.add(HeaderName.accessControlAllowMethods, methods.joined(separator: ", "))
        response.headers.add(HeaderName.accessControlAllowHeaders, Self.allowedInRequests)
        response.headers.add(HeaderName.accessControlMaxAge, "600")
        return response
    }
}
