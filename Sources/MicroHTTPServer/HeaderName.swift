/// The names of the header fields the server and its handlers read or write, in one place:
/// a misspelt literal (`If-None-Macth`) compiles and silently never matches, a misspelt
/// constant does not compile.
///
/// Plain strings rather than a type of their own, so that ``HTTPHeaders`` takes them as it
/// takes any name a client sends, with no conversion on the request path. Names a service
/// defines for itself go in an extension of this type in that service's own module.
public enum HeaderName {
    // RFC 9110 and RFC 9112: what a request's framing and conditions are made of.
    public static let host = "Host"
    public static let contentLength = "Content-Length"
    public static let contentType = "Content-Type"
    public static let transferEncoding = "Transfer-Encoding"
    public static let connection = "Connection"
    public static let expect = "Expect"
    public static let accept = "Accept"
    public static let allow = "Allow"
    public static let location = "Location"
    public static let retryAfter = "Retry-After"
    public static let vary = "Vary"
    public static let eTag = "ETag"
    public static let ifMatch = "If-Match"
    public static let ifNoneMatch = "If-None-Match"
    public static let authorization = "Authorization"
    public static let wwwAuthenticate = "WWW-Authenticate"
    // RFC 9111.
    public static let cacheControl = "Cache-Control"
    // RFC 6265 and RFC 6454.
    public static let cookie = "Cookie"
    public static let setCookie = "Set-Cookie"
    public static let origin = "Origin"
    // Fetch (CORS).
    public static let accessControlAllowOrigin = "Access-Control-Allow-Origin"
    public static let accessControlAllowMethods = "Access-Control-Allow-Methods"
    public static let accessControlAllowHeaders = "Access-Control-Allow-Headers"
    public static let accessControlExposeHeaders = "Access-Control-Expose-Headers"
    public static let accessControlMaxAge = "Access-Control-Max-Age"
    public static let accessControlRequestMethod = "Access-Control-Request-Method"
    // What browsers and proxies read beside the standards above.
    public static let contentSecurityPolicy = "Content-Security-Policy"
    public static let referrerPolicy = "Referrer-Policy"
    public static let xContentTypeOptions = "X-Content-Type-Options"
    public static let xForwardedFor = "X-Forwarded-For"
    public static let xForwardedProto = "X-Forwarded-Proto"
    public static let xRequestID = "X-Request-ID"
    // The HTML standard's Server-Sent Events.
    public static let lastEventID = "Last-Event-ID"
}
