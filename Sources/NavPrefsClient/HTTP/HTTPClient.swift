import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One answer of the server: status, header fields (names in lower case), body.
struct HTTPAnswer: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as JSON.
    func json() throws(NavPrefsError) -> JSON { try JSON(parsing: body) }

    /// The strong `ETag`'s version (`"7"` → 7).
    var version: Int64? {
        guard let tag = header("ETag"), tag.count >= 3, tag.hasPrefix("\""), tag.hasSuffix("\"") else { return nil }
        return Int64(tag.dropFirst().dropLast())
    }
}

/// The requests of the library: JSON in, JSON out, problem+json turned into ``NavPrefsError``.
///
/// Reads and writes go through two sessions, so that a write never rides on a connection a
/// read left open: libcurl, under swift-corelibs-foundation's URLSession (Linux), sends a
/// request again by itself when a kept-alive connection dies before the answer comes, and
/// for a write that silent retry was seen to go out without its body and stall until the
/// request timed out (60 s). A write on a connection of its own (`Connection: close`) is never
/// retried that way; the library's own retry, with the same idempotency key, takes over at
/// once.
final class HTTPClient: Sendable {
    let server: URL
    let token: String?
    /// For reads (and the event stream's configuration).
    let session: URLSession
    /// For writes: each on a connection of its own on Linux (see above).
    private let writeSession: URLSession

    init(server: URL, token: String?, configuration: URLSessionConfiguration) {
        self.server = server
        self.token = token
        session = URLSession(configuration: configuration)
        writeSession = URLSession(configuration: configuration)
    }

    /// The URL of `path` (segments already percent-encoded) with `query`.
    func url(_ path: String, query: [(String, String)] = []) throws(NavPrefsError) -> URL {
        var text = server.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += path
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.segment($0.0))=\(Self.segment($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else { throw .invalidArgument("not a URL: \(text)") }
        return url
    }

    /// `text` as one path segment or query value: everything but RFC 3986's unreserved
    /// characters percent-encoded (a preference key may hold `/`, `?` or spaces).
    static func segment(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Sends a request; answers 2xx and 304, throws for the rest.
    /// - Throws: ``NavPrefsError/preconditionFailed(currentVersion:problem:)`` for 412,
    ///   ``NavPrefsError/refused(_:)`` for any other error status, ``NavPrefsError/transport(_:)``
    ///   when no answer came.
    func send(_ method: String, _ path: String, query: [(String, String)] = [], headers: [(String, String)] = [],
              body: JSON? = nil, contentType: String = "application/json") async throws(NavPrefsError) -> HTTPAnswer {
        var request = URLRequest(url: try url(path, query: query))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let isWrite = method != "GET"
        #if canImport(FoundationNetworking)
            if isWrite { request.setValue("close", forHTTPHeaderField: "Connection") }
        #endif
        if let body {
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.jsonText.utf8)
        }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await (isWrite ? writeSession : session).data(for: request)
        } catch {
            throw .transport(String(describing: error))
        }
        guard let http = response as? HTTPURLResponse else { throw .invalidResponse("not an HTTP answer") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        let answer = HTTPAnswer(status: http.statusCode, headers: fields, body: data)
        guard (200..<300).contains(answer.status) || answer.status == 304 else { throw Self.error(answer) }
        return answer
    }

    /// The error an answer that is not a success stands for.
    static func error(_ answer: HTTPAnswer) -> NavPrefsError {
        let body = (try? answer.json()) ?? .object([])
        let problem = Problem(status: answer.status, body: body)
        if answer.status == 412 {
            return .preconditionFailed(currentVersion: body["currentVersion"]?.int64Value, problem: problem)
        }
        return .refused(problem)
    }
}
