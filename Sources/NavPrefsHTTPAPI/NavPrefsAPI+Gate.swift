public import MicroHTTPServer
import NavPrefsStore

/// What every request passes before a route runs, decided from its request line and headers
/// alone: the `Host` it was sent to, the route, the `Origin` of a write, and who may call the
/// route. A request with a body meets it twice: at admission, before a byte of its body is read
/// (``admit(_:)``), and again when the body is in (``handle(_:)``; token lookups are cached by
/// then). A request without a body meets it once, in ``handle(_:)``, which is called as soon as
/// its headers are in.
extension NavPrefsAPI {
    enum Gate {
        case pass(Route, parameters: [String], Authenticator.Decision)
        /// Refused, with the route template for the log (`-` when none matched).
        case refuse(HTTPResponse, route: String)
    }

    /// Health and readiness answer whatever the `Host`: orchestrators probe them by address,
    /// and they reveal nothing and change nothing.
    private static let hostExempt: Set<String> = ["/healthz", "/readyz"]

    func gate(_ head: HTTPRequestHead) -> Gate {
        if !Self.hostExempt.contains(head.path), !policy.admits(host: head.headers["Host"]) {
            let host = String((head.headers["Host"] ?? "").prefix(80))
            let error = APIError(.hostNotAllowed, "This service does not answer to the host '\(host)'; its operator lists the names it answers to (--allowed-hosts).")
            return .refuse(error.response(instance: head.path), route: "-")
        }
        switch router.match(method: head.method, path: head.rawPath) {
        case .malformedParameter(let template):
            let error = APIError(.malformedPath, "A path segment's percent-encoding is broken or does not decode to UTF-8.")
            return .refuse(error.response(instance: head.path), route: template)
        case .notFound:
            let error = APIError(.notFound, "No resource at this path; see /openapi.yaml for the API.")
            return .refuse(error.response(instance: head.path), route: "-")
        case .methodNotAllowed(let template, let allowed)
            where head.method == "OPTIONS" && head.headers.contains("Access-Control-Request-Method"):
            // A CORS preflight: answered for allowed origins, else like any other OPTIONS.
            if let origin = head.headers["Origin"], cors.allows(origin) {
                return .refuse(cors.preflight(origin: origin, methods: allowed), route: template)
            }
            let error = APIError(.methodNotAllowed, "OPTIONS is not allowed here; use \(allowed.joined(separator: ", ")).",
                                 headers: [("Allow", allowed.joined(separator: ", "))])
            return .refuse(error.response(instance: head.path), route: template)
        case .methodNotAllowed(let template, let allowed):
            let error = APIError(.methodNotAllowed, "\(head.method.prefix(20)) is not allowed here; use \(allowed.joined(separator: ", ")).",
                                 headers: [("Allow", allowed.joined(separator: ", "))])
            return .refuse(error.response(instance: head.path), route: template)
        case .found(let route, let parameters):
            if let refusal = foreignOriginRefusal(head) { return .refuse(refusal, route: route.template) }
            return .pass(route, parameters: parameters, authenticator.decide(method: head.method, template: route.template,
                                                                            parameters: route.parameterNames, values: parameters,
                                                                            head: head))
        }
    }

    /// A write from a web page of another origin, refused unless that origin is trusted: listed
    /// in `--cors-origins`, or, once tokens protect the service (a page cannot send one it does
    /// not have), allowed by `*`. Reads are left to CORS: a foreign page cannot read the answer.
    private func foreignOriginRefusal(_ head: HTTPRequestHead) -> HTTPResponse? {
        switch head.method {
        case "GET", "HEAD", "OPTIONS": return nil
        default: break
        }
        guard let origin = head.headers["Origin"], !RequestPolicy.isSameOrigin(origin, host: head.headers["Host"]) else { return nil }
        if cors.origins.contains(origin) || (cors.origins.contains("*") && authenticator.isRequired) { return nil }
        let error = APIError(.foreignOrigin, "A write from the web page at '\(origin.prefix(80))' is refused: its origin is not one this service trusts (--cors-origins).")
        return error.response(instance: head.path)
    }

    /// Decides at the header fields whether a request's body may come: requests without a body
    /// have nothing to hold back and go straight to ``handle(_:)``; the others are answered now
    /// when refused (401, 403, 404, 405, 421...) and otherwise read up to their route's own
    /// body limit, after an uncached token was looked up with the connection suspended.
    public func admit(_ head: HTTPRequestHead) -> HTTPAdmission {
        guard Self.hasBody(head.headers) else { return .proceed(maxBodyBytes: 0) }
        let requestID = RequestID.take(from: head.headers)
        switch gate(head) {
        case .refuse(let response, let template):
            return .answer(finish(response, head, route: template, requestID))
        case .pass(let route, _, let decision):
            let limit = route.maxBodyBytes
            switch decision {
            case .allow:
                return .proceed(maxBodyBytes: limit)
            case .deny(let error):
                return .answer(finish(answer(error, head, requestID), head, route: route.template, requestID))
            case .check(let check):
                return .deferred { [self] in
                    do throws(StoreError) {
                        switch try await check() {
                        case .allow: return .proceed(maxBodyBytes: limit)
                        case .deny(let denial): return .answer(finish(answer(denial, head, requestID), head, route: route.template, requestID))
                        }
                    } catch {
                        let response = answer(APIError(error), head, requestID)
                        return .answer(finish(response, head, route: route.template, requestID))
                    }
                }
            }
        }
    }

    /// Whether the request announces a body: a `Content-Length` above 0, or any `Transfer-Encoding`.
    static func hasBody(_ headers: HTTPHeaders) -> Bool {
        if headers.contains("Transfer-Encoding") { return true }
        guard let length = headers["Content-Length"] else { return false }
        return length != "0"
    }
}
