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
/// On Apple platforms through `URLSession`. On Linux through the library's own HTTP/1.1 reader
/// (`SocketExchange`, with OpenSSL for https, connections kept alive in a `ConnectionPool`): under
/// swift-corelibs-foundation, libcurl sends a request again by itself when a kept-alive
/// connection dies before the answer comes (a write was seen to go out again without its body
/// and stall for 60 s), retries a refused connection for seconds before failing, and keeps an
/// idle event stream's socket spinning. The library's own retry, with the same idempotency key,
/// is then the only one.
final class HTTPClient: Sendable {
    let server: URL
    let token: String?
    /// The device name sent with every write (`NavPrefs-Device`), as the server accepts it.
    let deviceName: String?
    /// This client as the server records the author of its writes (its label is the server's:
    /// unknown here).
    let author: ChangeAuthor
    /// For reads (and, on Apple platforms, the event stream's configuration).
    let session: URLSession
    /// For writes: never a connection a read left open.
    private let writeSession: URLSession
    /// How long an answer may take (the configuration's `timeoutIntervalForRequest`).
    let timeout: Duration
    /// The configuration's extra header fields (sent with every request, also on Linux).
    private let extraHeaders: [(String, String)]
    #if os(Linux)
        /// OpenSSL's configuration, made at the first https connection.
        private let tls = Locked<TLSContext?>(nil)
        /// Connections kept open between requests.
        private let pool = ConnectionPool()
    #endif

    init(server: URL, token: String?, deviceName: String?, configuration: URLSessionConfiguration) {
        self.server = server
        self.token = token
        self.deviceName = deviceName
        // `npt_<id>_<secret>`: the id is the part the server records.
        let id = token.flatMap { token in
            token.hasPrefix("npt_") ? token.dropFirst(4).split(separator: "_", maxSplits: 1).first.map(String.init) : nil
        }
        author = ChangeAuthor(token: id ?? ChangeAuthor.openToken, device: deviceName)
        session = URLSession(configuration: configuration)
        writeSession = URLSession(configuration: configuration)
        timeout = .milliseconds(Int64(max(configuration.timeoutIntervalForRequest, 1) * 1000))
        var extra: [(String, String)] = []
        for (name, value) in configuration.httpAdditionalHeaders ?? [:] {
            if let name = name as? String, let value = value as? String { extra.append((name, value)) }
        }
        extraHeaders = extra
    }

    #if os(Linux)
        func tlsContext() throws(NavPrefsError) -> TLSContext {
            try tls.withLock { (context: inout TLSContext?) throws(NavPrefsError) -> TLSContext in
                if let context { return context }
                let made = try TLSContext()
                context = made
                return made
            }
        }
    #endif

    /// A request to `path` with the library's header fields (token, `Accept`) and `headers`.
    func request(_ method: String, _ path: String, query: [(String, String)] = [], headers: [(String, String)] = [],
                 body: Data? = nil, accept: String = "application/json") throws(NavPrefsError) -> WireRequest {
        var fields = extraHeaders + [("Accept", accept)]
        if let token { fields.append(("Authorization", "Bearer \(token)")) }
        // Writes name the device they come from; the server records it with the change.
        if let deviceName, method != "GET", method != "HEAD" { fields.append(("NavPrefs-Device", DeviceNameField.encoded(deviceName))) }
        return WireRequest(method: method, url: try url(path, query: query), headers: fields + headers, body: body, timeout: timeout)
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
    ///   when no answer came, ``NavPrefsError/cancelled`` when the task was.
    func send(_ method: String, _ path: String, query: [(String, String)] = [], headers: [(String, String)] = [],
              body: JSON? = nil, contentType: String = "application/json") async throws(NavPrefsError) -> HTTPAnswer {
        var fields = headers
        if body != nil { fields.append(("Content-Type", contentType)) }
        let wire = try request(method, path, query: query, headers: fields, body: body.map { Data($0.jsonText.utf8) })
        let answer = try await exchange(wire)
        guard (200..<300).contains(answer.status) || answer.status == 304 else { throw Self.error(answer) }
        return answer
    }

    /// One request and its answer, whatever its status.
    private func exchange(_ wire: WireRequest) async throws(NavPrefsError) -> HTTPAnswer {
        #if os(Linux)
            return try await SocketExchange.send(wire, pool: pool, tls: { [self] () throws(NavPrefsError) in try tlsContext() })
        #else
            let data: Data, response: URLResponse
            do {
                (data, response) = try await (wire.method == "GET" ? session : writeSession).data(for: wire.urlRequest)
            } catch {
                if Task.isCancelled { throw .cancelled }
                throw .transport(String(describing: error))
            }
            guard let http = response as? HTTPURLResponse else { throw .invalidResponse("not an HTTP answer") }
            var fields: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
            }
            return HTTPAnswer(status: http.statusCode, headers: fields, body: data)
        #endif
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
