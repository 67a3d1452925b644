import MicroHTTPServer

/// One operation, declared whole in one place: its method, its path template, who may call
/// it, whether it changes anything, the largest body it reads, and its handler.
///
/// The router, the gate and the contract tests read everything about a route from here;
/// nothing elsewhere decides by looking at the template's text. Each resource file provides
/// its routes as a ``RouteCollection``. A class: it is made once and handed along with every
/// request (match, admission context, handler), one reference each.
final class Route: Sendable {
    /// Who may call a route once any access token exists (while none does, the API is open:
    /// see ``Authenticator``).
    enum Access: Sendable, Equatable {
        /// Anyone: health, readiness, the console's files and the contract hold no data.
        case `public`
        /// The token of the profile the `{profile}` parameter names, or an admin token.
        case profile
        /// As ``profile``, and also a stream token for that profile: `EventSource` cannot
        /// send an `Authorization` field, so a browser's stream carries one in its query or
        /// cookie instead.
        case profileStream
        /// An admin token only: what spans profiles (their list, metrics) or manages tokens.
        case admin
    }

    /// Whether a route changes what the service holds.
    enum Effect: Sendable, Equatable {
        /// Changes nothing: it may be repeated, prefetched or sent by mistake at no cost,
        /// whatever its method (a gesture's evaluation is a POST because the pan is a body).
        case reads
        /// Changes what the store holds (a profile's data, the tokens) or issues a credential.
        case writes
    }

    let method: HTTPMethod
    let template: String
    let access: Access
    let effect: Effect
    /// The largest body the operation reads (413 beyond it, before the upload when the size is
    /// declared): a counter step needs bytes, not a megabyte. The server's own limit still applies.
    let maxBodyBytes: Int
    let handler: @Sendable (APIRequest) throws(APIError) -> APIResult
    /// The names of the template's parameters, in order.
    let parameterNames: [String]
    /// Where `{profile}` is among ``parameterNames``: the profile ``Access/profile`` is about.
    let profileParameter: Int?

    /// What most operations need: a small JSON object.
    static let smallBody = 4 << 10
    /// Whole navigation stacks and sets of preferences: the server's own limit decides.
    static let largeBody = Int.max

    /// - Precondition: a route of ``Access/profile`` or ``Access/profileStream`` has a
    ///   `{profile}` parameter (checked in debug builds: a route declared so is a bug the
    ///   route tests meet at once).
    init(_ method: HTTPMethod, _ template: String, _ access: Access, _ effect: Effect, maxBodyBytes: Int = Route.smallBody,
         _ handler: @escaping @Sendable (APIRequest) throws(APIError) -> APIResult) {
        self.method = method
        self.template = template
        self.access = access
        self.effect = effect
        self.maxBodyBytes = maxBodyBytes
        self.handler = handler
        parameterNames = template.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
        profileParameter = parameterNames.firstIndex(of: "profile")
        assert(profileParameter != nil || (access != .profile && access != .profileStream), "\(template) names no profile")
    }

    /// The profile a request for this route is about (its `{profile}` value; empty when the
    /// route has none).
    func profile(in parameters: [String]) -> String {
        guard let index = profileParameter, index < parameters.count else { return "" }
        return parameters[index]
    }
}
