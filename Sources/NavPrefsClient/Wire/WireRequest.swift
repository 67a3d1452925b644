import Foundation

/// One request as the library sends it, whichever transport carries it (URLSession on Apple
/// platforms, the library's own HTTP/1.1 reader on Linux).
struct WireRequest: Sendable {
    var method: String
    var url: URL
    /// In the order given; `Host`, `Content-Length` and `Connection` are the transport's.
    var headers: [(String, String)]
    var body: Data?
    /// How long an answer may take before the request is given up (no answer: a transport error).
    var timeout: Duration

    /// The bytes of the request on the wire: HTTP/1.1, one request per connection.
    func serialized(host: String) -> [UInt8] {
        var target = url.path.isEmpty ? "/" : url.path
        // `URL.path` decodes percent escapes; the escaped form is what goes on the wire.
        if let components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if let query = components.percentEncodedQuery { target += "?" + query }
        }
        var text = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" } else if method != "GET" { text += "Content-Length: 0\r\n" }
        text += "\r\n"
        return Array(text.utf8) + (body.map(Array.init) ?? [])
    }
}

#if !os(Linux)
    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension WireRequest {
        /// The request for `URLSession`.
        var urlRequest: URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = method
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            request.httpBody = body
            request.timeoutInterval = Double(timeout.components.seconds) + 1
            return request
        }
    }
#endif
