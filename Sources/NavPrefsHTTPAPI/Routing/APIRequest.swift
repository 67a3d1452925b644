public import MicroHTTPServer
import NavPrefsCore
import NavPrefsStore

/// A routed request, as handlers see it.
public struct APIRequest: Sendable {
    public let http: HTTPRequest
    /// The matched template, e.g. `/v1/profiles/{profile}/counter`.
    public let template: String
    let parameterNames: [String]
    let parameterValues: [String]

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
public enum APIResult: Sendable {
    case immediate(HTTPResponse)
    case deferred(@Sendable () async throws(APIError) -> HTTPResponse)
}

/// Runs a store call, turning its error into the API error that answers it.
func fromStore<T>(_ body: () async throws(StoreError) -> T) async throws(APIError) -> T {
    do {
        return try await body()
    } catch {
        throw APIError(error)
    }
}
