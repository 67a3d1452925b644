public import MicroHTTPServer
import NavPrefsCore
public import NavPrefsStore

/// A routed request, as handlers see it.
public struct APIRequest: Sendable {
    public let http: HTTPRequest
    /// The matched template, e.g. `/v1/profiles/{profile}/counter`.
    public let template: String
    let parameterNames: [String]
    let parameterValues: [String]
    /// Who vouched for the request (the access token's id), if anyone had to.
    let caller: Authenticator.Caller
    /// The client's address: the peer's, or the one a trusted proxy forwarded.
    let client: String
    /// Whether the client reached a trusted proxy over TLS.
    let isSecure: Bool

    /// The value of template parameter `name` (always present once routed).
    func parameter(_ name: String) -> String {
        guard let index = parameterNames.firstIndex(of: name), index < parameterValues.count else { return "" }
        return parameterValues[index]
    }

    /// The `{profile}` path parameter, validated.
    func profile() throws(APIError) -> ProfileName {
        let text = parameter("profile")
        do {
            return try ProfileName(text)
        } catch {
            throw APIError(.invalidProfileName, "'\(text.prefix(80))' is not a valid profile name: \(error).")
        }
    }
}

/// What a route handler answers: a response now (from memory, on the event loop), or work
/// that may wait for storage (run as a task while the connection is suspended).
///
/// A handler validates everything the request carries (path, query, headers, body) before it
/// defers, so deferred work can fail only with a ``StoreError``, which ``NavPrefsAPI`` maps to
/// its answer in one place. An answer that depends on what the store holds (a key with no
/// value) is a response the work returns, not an error it throws.
public enum APIResult: Sendable {
    case immediate(HTTPResponse)
    case deferred(@Sendable () async throws(StoreError) -> HTTPResponse)
}
