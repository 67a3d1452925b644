import Foundation
import Glibc

/// A blocking HTTP/1.1 client connection over a POSIX socket, for tests.
///
/// It writes exactly the bytes a test gives it (so tests can send malformed or hostile requests),
/// keeps the connection alive between requests, and reads with a timeout so that a broken server
/// fails a test instead of hanging it. Not for production: no TLS, no redirects, one request at a time.
public final class TestConnection: @unchecked Sendable {
    private let socket: Int32
    private var buffer: [UInt8] = []
    private var bufferOffset = 0
    public let port: Int

    /// - Parameter receiveBufferBytes: the socket's receive buffer (`SO_RCVBUF`, set before it
    ///   connects), for a client that stops reading and should take little of what is sent.
    public init(port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(10), sourceAddress: String? = nil,
                receiveBufferBytes: Int? = nil) throws {
        self.port = port
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestClientError.system("socket", errno) }
        var seconds = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        var noDelay: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        if var receiveBufferBytes = receiveBufferBytes.map(Int32.init(clamping:)) {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &receiveBufferBytes, socklen_t(MemoryLayout<Int32>.size))
        }
        if let sourceAddress {
            var local = try Self.address(sourceAddress, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw TestClientError.system("bind", errno) }
        }
        var remote = try Self.address(host, port: port)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestClientError.system("connect", errno) }
    }

    /// The only place the socket is closed: a class whose initializer throws once every stored
    /// property is set is deinitialized too, so closing it in `init` as well closed it twice, and
    /// the second close hit whatever had reused the number (another test's database, a server's
    /// socket).
    deinit { if socket >= 0 { Glibc.close(socket) } }

    private static func address(_ host: String, port: Int) throws -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw TestClientError.badAddress(host) }
        return address
    }

    // MARK: Writing

    public func send(raw bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestClientError.system("send", errno) }
            sent += n
        }
    }

    public func send(raw text: String) throws { try send(raw: Array(text.utf8)) }

    /// The socket's receive buffer as the kernel reports it (twice what was asked for).
    public var receiveBufferBytes: Int {
        var bytes: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(socket, SOL_SOCKET, SO_RCVBUF, &bytes, &length) == 0 ? Int(bytes) : 0
    }

    /// Shuts down the sending side (the server reads the end of the stream) and keeps reading.
    public func finishSending() { shutdown(socket, Int32(SHUT_WR)) }

    /// Sends a request; adds `Host`, and `Content-Length` when there is a body and none was given.
    public func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) throws {
        var head = "\(method) \(path) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { head += "Host: 127.0.0.1:\(port)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let framed = headers.contains { ["content-length", "transfer-encoding"].contains($0.0.lowercased()) }
        if !body.isEmpty && !framed { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(raw: Array(head.utf8) + body)
    }

    /// Sends a request and reads its response.
    public func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> TestResponse {
        try send(method, path, headers: headers, body: body)
        return try readResponse(method: method)
    }

    public func request(_ method: String, _ path: String, headers: [(String, String)] = [], json: String) throws -> TestResponse {
        try request(method, path, headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8))
    }

    // MARK: Reading

    /// Reads one complete response (a streamed body is read to its end).
    public func readResponse(method: String = "GET") throws -> TestResponse {
        var response = try readHead()
        if method == "HEAD" || response.status == 204 || response.status == 304 || (100..<200).contains(response.status) {
            return response
        }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while let chunk = try readChunk() { response.body += chunk }
        } else if let length = response.header("Content-Length").flatMap(Int.init) {
            response.body = try readExactly(length)
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// Reads the status line and header fields, leaving the body unread (for streams).
    public func readHead() throws -> TestResponse {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw TestClientError.malformed(statusLine) }
        var headers: [(String, String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw TestClientError.malformed(line) }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return TestResponse(status: status, headers: headers, body: [])
    }

    /// Reads the next chunk of a chunked body; `nil` after the last (zero-length) chunk.
    public func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) else {
            throw TestClientError.malformed("chunk size '\(sizeLine)'")
        }
        if size == 0 {
            while try !readLine().isEmpty {}  // trailers
            return nil
        }
        let data = try readExactly(size)
        // The chunk's data ends with CRLF and nothing else: anything more is broken framing.
        let end = try readLine()
        guard end.isEmpty else { throw TestClientError.malformed("chunk of \(size) bytes followed by '\(end.prefix(40))'") }
        return data
    }

    /// Reads chunks of a streamed body until their text contains `marker`; returns all text read.
    public func readStream(until marker: String) throws -> String {
        var text = ""
        while !text.contains(marker) {
            guard let chunk = try readChunk() else { throw TestClientError.closed(text) }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    /// Whether the server has closed the connection (reads EOF within `timeout`).
    public func isClosedByServer(within timeout: Duration = .seconds(2)) -> Bool {
        var pollDescriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&pollDescriptor, 1, milliseconds) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, Int32(MSG_PEEK)) <= 0
    }

    /// Whether something can be read now or within `timeout` (bytes, end of stream or an error),
    /// without reading it: lets a test that trickles bytes stop as soon as the server answers.
    public func isReadable(within timeout: Duration) -> Bool {
        if bufferOffset < buffer.count { return true }
        var pollDescriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return poll(&pollDescriptor, 1, milliseconds) == 1
    }

    private func fill() throws {
        if bufferOffset > 0 && bufferOffset == buffer.count { buffer.removeAll(keepingCapacity: true); bufferOffset = 0 }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if n == 0 { throw TestClientError.closed(String(decoding: buffer[bufferOffset...], as: UTF8.self)) }
        guard n > 0 else { throw errno == EAGAIN ? TestClientError.timeout : TestClientError.system("recv", errno) }
        buffer.append(contentsOf: chunk[..<n])
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffer[bufferOffset...].firstIndex(of: UInt8(ascii: "\n")) {
                var line = buffer[bufferOffset..<newline]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                bufferOffset = newline + 1
                return String(decoding: line, as: UTF8.self)
            }
            try fill()
        }
    }

    /// Every byte still to come until the server closes the connection (what a response left behind).
    public func readUntilClosed() throws -> [UInt8] { try readToEnd() }

    /// Reads `count` body bytes of a response whose head was read with ``readHead()``.
    public func readChunkless(_ count: Int) throws -> [UInt8] { try readExactly(count) }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count - bufferOffset < count { try fill() }
        let bytes = Array(buffer[bufferOffset..<bufferOffset + count])
        bufferOffset += count
        return bytes
    }

    private func readToEnd() throws -> [UInt8] {
        while true {
            do { try fill() } catch TestClientError.closed {
                let rest = Array(buffer[bufferOffset...])
                bufferOffset = buffer.count
                return rest
            }
        }
    }
}

public enum TestClientError: Error, CustomStringConvertible {
    case system(String, Int32)
    case badAddress(String)
    case malformed(String)
    case closed(String)
    case timeout

    public var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .badAddress(let host): "not an IPv4 address: \(host)"
        case .malformed(let text): "malformed response: \(text)"
        case .closed(let pending): "connection closed by server (unread: \(pending.prefix(200)))"
        case .timeout: "timed out waiting for the server"
        }
    }
}
