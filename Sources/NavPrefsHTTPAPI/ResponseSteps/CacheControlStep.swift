import MicroHTTPServer

/// Gives an answer that names no `Cache-Control` the one ``CacheDirectives`` chooses.
///
/// First in the order: it decides from the route's own fields alone (a `Cache-Control` the
/// route chose, its `ETag`), before any step adds the fields every answer carries.
struct CacheControlStep: ResponseStep {
    func apply(to response: inout HTTPResponse, _ context: ResponseContext) {
        CacheDirectives.apply(to: &response, request: context.request)
    }
}
