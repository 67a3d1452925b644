import MicroHTTPServer

/// `X-Content-Type-Options: nosniff` on every answer: a browser must take each body as the
/// type it is declared (a problem+json that echoes a path must never be read as HTML).
///
/// After the cache directive and before CORS, beside ``RequestIDStep``: a field every answer
/// carries whatever its route, so it goes in once the route's own fields are settled.
struct NoSniffStep: ResponseStep {
    func apply(to response: inout HTTPResponse, _ context: ResponseContext) {
        response.headers.add(HeaderName.xContentTypeOptions, "nosniff")
    }
}
