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

    func allows(_ origin: String) -> Bool { origins.contains("*") || origins.contains(origin) }

    /// Adds the headers that let the page at `origin` read `response`.
    func decorate(_ response: inout HTTPResponse, origin: String) {
        guard allows(origin) else { return }
        // The origin itself rather than `*`: correct for credentialed requests too, with Vary
        // so caches keep answers for different origins apart.
        response.headers.add("Access-Control-Allow-Origin", origin)
        response.headers.add("Vary", "Origin")
        response.headers.add("Access-Control-Expose-Headers", "ETag, X-Request-ID, Retry-After, Allow, WWW-Authenticate, Location, Idempotent-Replayed")
    }

    /// The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`) for a resource
    /// that supports `methods`.
    func preflight(origin: String, methods: [String]) -> HTTPResponse {
        var response = HTTPResponse(status: 204)
        decorate(&response, origin: origin)
        response.headers.add("Access-Control-Allow-Methods", methods.joined(separator: ", "))
        response.headers.add("Access-Control-Allow-Headers", "Authorization, Content-Type, If-Match, If-None-Match, Last-Event-ID, X-Request-ID, Idempotency-Key")
        response.headers.add("Access-Control-Max-Age", "600")
        return response
    }
}
