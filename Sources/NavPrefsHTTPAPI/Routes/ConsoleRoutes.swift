import MicroHTTPServer
import NavPrefsConsole

/// The web console and the contract, served from the files compiled into the binary
/// (``ConsoleFiles``): `/` (the console's home page), `/console/{file}` (its pages, scripts and
/// styles), `/console/vendor/swagger-ui/{file}` (the vendored Swagger UI), `/openapi.yaml` and
/// `/openapi.json`.
///
/// These routes hold no data, so they are open even once tokens exist (the console must load to
/// ask for a token); everything the pages show comes from the API with the token the user gives,
/// so the console can do nothing that token cannot. Each answer carries a Content-Security-Policy
/// that lets a page load only this server's own files and talk only to this server: no inline
/// script or style, no other origin. Files revalidate by ETag (`Cache-Control: no-cache`), so a
/// new binary's console shows at the next load and an unchanged file costs one 304.
struct ConsoleRoutes: RouteCollection {
    /// What every console page may do: its own scripts, styles and images, requests to its own origin.
    static let policy = policy(images: "'self'")
    /// The API reference page's: Swagger UI's own stylesheet draws its icons as `data:` images.
    static let apiReferencePolicy = policy(images: "'self' data:")

    private static func policy(images: String) -> String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src \(images); connect-src 'self'; "
            + "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    var routes: [Route] {
        [
            Route(.get, "/", .public, .reads) { request throws(APIError) in try Self.serve("console/index.html", request) },
            Route(.get, "/console/{file}", .public, .reads) { request throws(APIError) in
                try Self.serve("console/" + request.parameter("file"), request)
            },
            Route(.get, "/console/vendor/swagger-ui/{file}", .public, .reads) { request throws(APIError) in
                try Self.serve("console/vendor/swagger-ui/" + request.parameter("file"), request)
            },
            Route(.get, "/openapi.yaml", .public, .reads) { request throws(APIError) in try Self.serve("openapi.yaml", request) },
            Route(.get, "/openapi.json", .public, .reads) { request throws(APIError) in try Self.serve("openapi.json", request) },
        ]
    }

    /// The file under `key`, or 304 when `If-None-Match` names its ETag, or 404.
    static func serve(_ key: String, _ request: APIRequest) throws(APIError) -> APIResult {
        guard let etag = ConsoleFiles.etag(key) else {
            throw APIError(.notFound, "The console has no file at this path; its home page is /.")
        }
        var headers = HTTPHeaders(reservingCapacity: 8)
        headers.add(HeaderName.eTag, etag)
        headers.add(HeaderName.cacheControl, "no-cache")
        headers.add(HeaderName.contentSecurityPolicy, key == "console/api.html" ? apiReferencePolicy : policy)
        // Not no-referrer: browsers then send `Origin: null` with a page's own writes, which an
        // Origin check must refuse.
        headers.add(HeaderName.referrerPolicy, "same-origin")
        if notModified(request.http.headers, etag) {
            return .immediate(.notModified(headers: headers, representationLength: ConsoleFiles.size(key)))
        }
        guard let file = ConsoleFiles.file(key) else {
            throw APIError(.notFound, "The console has no file at this path; its home page is /.")
        }
        headers.add(HeaderName.contentType, file.contentType)
        return .immediate(HTTPResponse(status: 200, headers: headers, bytes: file.bytes))
    }

    /// Whether `If-None-Match` names `etag` (weak comparison, RFC 9110 §13.1.2) or is `*`.
    static func notModified(_ headers: HTTPHeaders, _ etag: String) -> Bool {
        guard headers.contains(HeaderName.ifNoneMatch) else { return false }
        return headers.listMembers(for: HeaderName.ifNoneMatch).contains { member in
            member == "*" || (member.hasPrefix("W/") ? member.dropFirst(2) : member) == etag
        }
    }
}
