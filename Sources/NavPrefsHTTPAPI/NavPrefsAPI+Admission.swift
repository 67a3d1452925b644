public import MicroHTTPServer
import NavPrefsCore
import NavPrefsStore

/// What every request passes before a route runs, decided from its request line and headers
/// alone: the `Host` it was sent to, the route, the `Origin` of a write, and who may call the
/// route. Every request meets it once, at admission (``admit(_:)``), before a byte of its body
/// is read; what it decided travels to ``handle(_:responder:)`` as the request's admission context
/// (``Admitted``).
extension NavPrefsAPI {
    /// What the checks of a request's head came to, before admission tells the transport.
    enum AdmissionCheck {
        /// Admitted so far, with the device the write names (``DeviceName``), if it names one.
        case pass(Route, parameters: [String], Authenticator.Decision, device: DeviceName?)
        /// Refused, with the route template for the log (`-` when none matched).
        case refuse(HTTPResponse, route: String)
    }

    /// Health and readiness answer whatever the `Host`: orchestrators probe them by address,
    /// and they reveal nothing and change nothing. (Two comparisons: hashing the path into a
    /// set cost more, on every request.)
    private static func isHostExempt(_ path: String) -> Bool { path == "/healthz" || path == "/readyz" }

    func checkAdmission(_ head: HTTPRequestHead) -> AdmissionCheck {
        // RFC 6454 §7.3: at most one Origin; with two, which one a check reads decides the answer.
        if head.headers.count(of: HeaderName.origin) > 1 {
            let error = APIError(.invalidOrigin, "A request carries at most one Origin field (RFC 6454 §7.3).")
            return .refuse(error.response(instance: head.path), route: "-")
        }
        if !Self.isHostExempt(head.path), !policy.admits(host: head.headers[HeaderName.host]) {
            let host = String((head.headers[HeaderName.host] ?? "").prefix(80))
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
            where head.method == HTTPMethod.options.rawValue && head.headers.contains(HeaderName.accessControlRequestMethod):
            // A CORS preflight: answered for allowed origins, else like any other OPTIONS.
            if let origin = head.headers[HeaderName.origin], cors.allows(origin) {
                return .refuse(cors.preflight(origin: origin, methods: allowed), route: template)
            }
            let error = APIError(.methodNotAllowed, "OPTIONS is not allowed here; use \(allowed.joined(separator: ", ")).",
                                 headers: [(HeaderName.allow, allowed.joined(separator: ", "))])
            return .refuse(error.response(instance: head.path), route: template)
        case .methodNotAllowed(let template, let allowed):
            let error = APIError(.methodNotAllowed, "\(head.method.prefix(20)) is not allowed here; use \(allowed.joined(separator: ", ")).",
                                 headers: [(HeaderName.allow, allowed.joined(separator: ", "))])
            return .refuse(error.response(instance: head.path), route: template)
        case .found(let route, let parameters):
            if let refusal = foreignOriginRefusal(head) { return .refuse(refusal, route: route.template) }
            if let refusal = queryOnWriteRefusal(head) { return .refuse(refusal, route: route.template) }
            if let refusal = repeatedFieldRefusal(head) { return .refuse(refusal, route: route.template) }
            let device: DeviceName?
            switch Self.device(of: head, for: route) {
            case .success(let named): device = named
            case .failure(let error): return .refuse(error.response(instance: head.path), route: route.template)
            }
            return .pass(route, parameters: parameters,
                         authenticator.decide(route.access, profile: route.profile(in: parameters), head: head), device: device)
        }
    }

    /// Header fields that hold one value, sent more than once: which one counts would be a
    /// guess (the first? the last?), and a proxy in front may have guessed otherwise, so the
    /// request is refused, as two `Host` fields are.
    static let singleValueFields = [HeaderName.authorization, HeaderName.lastEventID, HeaderName.idempotencyKey, HeaderName.navPrefsDevice]

    /// The device a write names in `NavPrefs-Device` (``DeviceName``), checked before its body is
    /// read: the name is recorded with the change, so a write whose name cannot be is refused
    /// whole (400 `invalid-device-name`), never stored without it. Routes that read (by their
    /// declaration) record nothing and leave the field alone.
    static func device(of head: HTTPRequestHead, for route: Route) -> Result<DeviceName?, APIError> {
        guard route.effect == .writes, let value = head.headers[HeaderName.navPrefsDevice] else { return .success(nil) }
        do {
            return .success(try DeviceName.parse(field: value))
        } catch {
            return .failure(APIError(.invalidDeviceName,
                                     "\(HeaderName.navPrefsDevice) names the device a write comes from: 1 to \(DeviceName.maxLength) characters, visible ASCII and spaces, anything else percent-encoded as UTF-8, no control characters; here \(error)."))
        }
    }

    private func repeatedFieldRefusal(_ head: HTTPRequestHead) -> HTTPResponse? {
        // The fields are read once here, not once for each name.
        let headers = head.headers
        guard let name = Self.singleValueFields.first(where: { headers.count(of: $0) > 1 }) else { return nil }
        let error = APIError(.repeatedHeaderField, "\(name) was sent \(headers.values(for: name).count) times; send it once.",
                             extensions: ["field": .string(name)])
        return error.response(instance: head.path)
    }

    /// A write with query arguments: no write takes any, so `increment?by=1000` must not quietly
    /// add 1. Reads ignore arguments they do not know (as documented in openapi.yaml). Decided
    /// by the method, not the route's declared ``Route/Effect``: a gesture's evaluation, a POST
    /// that changes nothing, takes its arguments in its body too.
    private func queryOnWriteRefusal(_ head: HTTPRequestHead) -> HTTPResponse? {
        guard !HTTPMethod(rawValue: head.method).isSafe, let first = head.query.first else { return nil }
        let error = APIError(.invalidQuery, "\(head.method.prefix(20)) here takes no query arguments (found '\(first.name.prefix(40))'); send what the write needs in its body.")
        return error.response(instance: head.path)
    }

    /// A write from a web page of another origin, refused unless that origin is trusted: listed
    /// in `--cors-origins`, or, once tokens protect the service (a page cannot send one it does
    /// not have), allowed by `*`. Reads are left to CORS: a foreign page cannot read the answer.
    /// Decided by the method, as browsers decide what a page may send without asking first.
    private func foreignOriginRefusal(_ head: HTTPRequestHead) -> HTTPResponse? {
        guard !HTTPMethod(rawValue: head.method).isSafe, let origin = head.headers[HeaderName.origin],
              !RequestPolicy.isSameOrigin(origin, host: head.headers[HeaderName.host]) else { return nil }
        if cors.origins.contains(origin) || (cors.origins.contains("*") && authenticator.isRequired) { return nil }
        let error = APIError(.foreignOrigin, "A write from the web page at '\(origin.prefix(80))' is refused: its origin is not one this service trusts (--cors-origins).")
        return error.response(instance: head.path)
    }

    /// Decides at the header fields, once for every request: refused requests are answered now
    /// (401, 403, 404, 405, 421...; a request with a body before it is read, and closed); the
    /// others proceed, their body read up to their route's own limit, with what the gate found
    /// as their admission context. An uncached token is looked up first, the connection suspended.
    public func admit(_ head: HTTPRequestHead) -> HTTPAdmission {
        let requestID = RequestID.take(from: head.headers)
        switch checkAdmission(head) {
        case .refuse(let response, let template):
            return .answer(finish(response, head, route: template, requestID))
        case .pass(let route, let parameters, let decision, let device):
            let admitted = { @Sendable (caller: Authenticator.Caller) in
                HTTPAdmission.proceed(maxBodyBytes: route.maxBodyBytes,
                                      admissionContext: Admitted(route: route, parameters: parameters, caller: caller,
                                                                 device: device, requestID: requestID))
            }
            switch decision {
            case .allow(let caller):
                return admitted(caller)
            case .deny(let error):
                return .answer(finish(answer(error, head, requestID), head, route: route.template, requestID))
            case .check(let check):
                // A token the cache does not know (once per token and cache period): looked up
                // in a task, since the lookup awaits the store; the request waits, suspended.
                return .later { [self] responder in
                    Task(executorPreference: requestTasks) { [self] in
                        do throws(StoreError) {
                            switch try await check() {
                            case .allow(let caller): responder.decide(admitted(caller))
                            case .deny(let denial):
                                responder.decide(.answer(finish(answer(denial, head, requestID), head, route: route.template, requestID)))
                            }
                        } catch {
                            let response = answer(APIError(error), head, requestID)
                            responder.decide(.answer(finish(response, head, route: route.template, requestID)))
                        }
                    }
                }
            }
        }
    }
}

/// What admission decided for a request, carried to ``NavPrefsAPI/handle(_:responder:)`` so
/// that nothing of the gate runs twice. A class: taken back out of the request's admission context (an
/// existential) with one reference instead of a copy of every field.
final class Admitted: Sendable {
    let route: Route
    let parameters: [String]
    let caller: Authenticator.Caller
    /// The device a write named (`NavPrefs-Device`), if it named one.
    let device: DeviceName?
    let requestID: String

    init(route: Route, parameters: [String], caller: Authenticator.Caller, device: DeviceName?, requestID: String) {
        self.route = route
        self.parameters = parameters
        self.caller = caller
        self.device = device
        self.requestID = requestID
    }
}
