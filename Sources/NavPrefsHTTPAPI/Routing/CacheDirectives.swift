import MicroHTTPServer

/// The `Cache-Control` of answers that name none of their own (RFC 9111).
///
/// Why every such answer: each one carries state that changes at any moment (a counter, the
/// preferences, a session's stack...) or a refusal about it, and an answer without
/// `Cache-Control` lets caches assign their own freshness lifetime (RFC 9111 §4.2.2: a 200,
/// 404 or 414 is heuristically cacheable), so a browser or proxy could show a stale counter
/// for minutes. `no-cache` keeps caching useful where the answer has an `ETag`: a cache may
/// store it but must revalidate it first, which costs one 304 while nothing changed. An answer
/// without a validator (a list of sessions, an error) gets `no-store`: revalidating it would
/// fetch it whole anyway, so keeping it only costs the cache room (REDbot warns about
/// `no-cache` without a validator). Routes that decide for themselves (the console's files,
/// the event stream, `no-store` for tokens, health and metrics) keep their own.
enum CacheDirectives {
    /// `no-cache` for an answer with an `ETag`, `private, no-cache` when the request carried a
    /// token (what it reads depends on who asks, so a shared cache must not keep it for
    /// others); `no-store` for an answer without one.
    static func value(tokenUsed: Bool, hasValidator: Bool) -> String {
        guard hasValidator else { return "no-store" }
        return tokenUsed ? "private, no-cache" : "no-cache"
    }

    /// Adds the directive to `response` unless it has a `Cache-Control` already.
    static func apply(to response: inout HTTPResponse, request: HTTPRequestHead) {
        guard !response.headers.contains(HeaderName.cacheControl) else { return }
        response.headers.add(HeaderName.cacheControl, value(tokenUsed: request.headers.contains(HeaderName.authorization),
                                                    hasValidator: response.headers.contains(HeaderName.eTag)))
    }
}
