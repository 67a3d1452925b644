import Foundation
import HTTPTestClient
@testable import MicroHTTPServer
import Synchronization
import Testing

/// Each libmicrohttpd 0.9.75 workaround of issue 20 shown twice: the library's own behaviour with
/// the workaround off, and the server's with it on (``MHDWorkarounds``). A workaround whose "off"
/// case stops failing means the library changed, and the workaround can go.
@Suite("libmicrohttpd 0.9.75 workarounds: every request gets exactly one answer from the handler")
struct WorkaroundTests {
    /// A server with every workaround but `without`.
    private func configuration(without: MHDWorkarounds = []) -> ServerConfiguration {
        var configuration = ServerConfiguration(port: 0)
        configuration.workarounds = MHDWorkarounds.all.subtracting(without)
        return configuration
    }

    /// Sends `request` raw and reads everything until the server closes (or 3 s pass).
    private func exchange(_ request: String, port: Int) async throws -> String {
        let connection = try TestConnection(port: port)
        try await connection.send(raw: request)
        let bytes = try await onOwnThread { try connection.readUntilClosed() }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func statusLines(_ text: String) -> [String] {
        text.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.") }
    }

    // MARK: Host

    @Test("HTTP/1.1 without Host: one 400 from the handler (MHD alone sends its head twice)")
    func missingHost() async throws {
        let request = "GET /echo HTTP/1.1\r\nConnection: close\r\n\r\n"
        try await withTestServer(configuration()) { server, handler in
            let answer = try await exchange(request, port: server.port)
            #expect(statusLines(answer) == ["HTTP/1.1 400 Bad Request"], "\(answer)")
            #expect(answer.contains("\"kind\":\"invalid_host\""))
            #expect(handler.rejections.withLock { $0 } == [.invalidHost])
        }
        // MHD's own check, and no rescue of its refusal by the server's LibraryRefusals either.
        try await withTestServer(configuration(without: [.checkHostItself, .answerLibraryRefusals])) { server, handler in
            let answer = try await exchange(request, port: server.port)
            #expect(statusLines(answer).count == 2, "MHD 0.9.75 answers with its head twice: \(answer)")
            #expect(handler.rejections.withLock { $0 }.isEmpty)
        }
    }

    @Test("two Host fields, or a Host that is no host, are refused with 400 (MHD alone serves them)",
          arguments: ["Host: 127.0.0.1\r\nHost: evil.example\r\n", "Host: [::1].evil.example\r\n", "Host: a b\r\n"])
    func badHost(_ fields: String) async throws {
        let request = "GET /echo HTTP/1.1\r\n\(fields)Connection: close\r\n\r\n"
        try await withTestServer(configuration()) { server, _ in
            let answer = try await exchange(request, port: server.port)
            #expect(statusLines(answer) == ["HTTP/1.1 400 Bad Request"], "\(answer)")
        }
    }

    @Test("HTTP/1.0 may omit Host")
    func http10WithoutHost() async throws {
        try await withTestServer(configuration()) { server, _ in
            let answer = try await exchange("GET /echo HTTP/1.0\r\n\r\n", port: server.port)
            #expect(statusLines(answer) == ["HTTP/1.1 200 OK"], "\(answer)")
        }
    }

    // MARK: Clients that finished sending, and streams' hang-ups

    /// Sends `request`, shuts down the sending side, waits until the handler holds it, then
    /// releases it; what the client read until the server closed.
    private func heldAnswer(_ request: String, server: HTTPServer, handler: TestHandler) async throws -> String {
        let connection = try TestConnection(port: server.port)
        try await connection.send(raw: request)
        connection.finishSending()
        let deadline = ContinuousClock.now + .seconds(5)
        while handler.held.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(50))  // the client's end is in the server's socket
        handler.release(with: 200)
        return String(decoding: try await onOwnThread { try connection.readUntilClosed() }, as: UTF8.self)
    }

    /// The library's own failure is a race on the layout of its connection buffer (it reads the
    /// client's end first only when its buffer can take more): issue 31 measured 8 of 30 writes
    /// and 39 of 40 streams lost, this machine loses about 1 in 20 to 30. So the "off" case is not
    /// shown here; the hostile suite counts whole runs. With the workaround the answer goes out
    /// every time, written by the server with `Connection: close`.
    @Test("an answer made while its client had finished sending reaches it, with or without a body")
    func halfClosedAnswer() async throws {
        for request in ["GET /held HTTP/1.1\r\nHost: x\r\n\r\n", "PUT /held HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
                        "HEAD /held HTTP/1.1\r\nHost: x\r\n\r\n"] {
            try await withTestServer(configuration()) { server, handler in
                let answer = try await heldAnswer(request, server: server, handler: handler)
                let body = request.hasPrefix("HEAD") ? "" : "released"
                #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n") && answer.hasSuffix("\r\n\r\n" + body), "\(answer)")
                #expect(answer.contains("Content-Length: 8\r\n") && answer.contains("Connection: close\r\n"), "\(answer)")
            }
        }
    }

    @Test("a stream's client that closes frees the stream at once, idle or not (MHD alone notices at the next write)")
    func streamHangUp() async throws {
        try await withTestServer(configuration()) { server, handler in
            var connections: [TestConnection] = []
            for _ in 0..<20 {
                let connection = try TestConnection(port: server.port)
                try await connection.send("GET", "/stream")
                _ = try await connection.readHead()
                _ = try await connection.readStream(until: "first\n")
                connections.append(connection)
            }
            #expect(server.openStreams == 20)
            connections = []  // closes them
            let deadline = ContinuousClock.now + .seconds(2)
            while server.openStreams > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(server.openStreams == 0)
            #expect(handler.terminations.withLock { $0 }.count == 20)
        }
        try await withTestServer(configuration(without: .watchSuspendedHangUps)) { server, handler in
            do {
                let connection = try TestConnection(port: server.port)
                try await connection.send("GET", "/stream")
                _ = try await connection.readHead()
                _ = try await connection.readStream(until: "first\n")
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(server.openStreams == 1, "MHD 0.9.75 does not see a suspended connection close")
            for stream in handler.streams.withLock({ $0 }) { stream.write(": probe\n") }
        }
    }

    @Test("a client that only shut down its sending side gets its stream's opening, then the end, answered now or later")
    func halfClosedStream() async throws {
        try await withTestServer(configuration()) { server, handler in
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            connection.finishSending()
            let answer = String(decoding: try await onOwnThread { try connection.readUntilClosed() }, as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n") && answer.contains("first\n"), "\(answer)")
            // Answered later: the opening written to the socket by the server, with its length.
            let later = try TestConnection(port: server.port)
            try await later.send(raw: "GET /held-stream HTTP/1.1\r\nHost: x\r\n\r\n")
            later.finishSending()
            let deadline = ContinuousClock.now + .seconds(5)
            while handler.heldStreams.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            try await Task.sleep(for: .milliseconds(50))
            handler.releaseStreams(opening: "retry: 2000\n\n")
            let laterAnswer = String(decoding: try await onOwnThread { try later.readUntilClosed() }, as: UTF8.self)
            #expect(laterAnswer.hasPrefix("HTTP/1.1 200 OK\r\n") && laterAnswer.hasSuffix("Content-Length: 13\r\nConnection: close\r\n\r\nretry: 2000\n\n"),
                    "\(laterAnswer)")
            #expect(handler.terminations.withLock { $0 }.count == 2, "both streams ended")
            while server.openStreams > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(server.openStreams == 0)
        }
    }

    @Test("a chunk line longer than the connection's buffer gets the handler's 400 at once (MHD alone stalls until the body deadline)")
    func longChunkLine() async throws {
        let request = "PUT /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;" + String(repeating: "x", count: 9_000) + "\r\n"
        try await withTestServer(configuration()) { server, handler in
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: request)
            let answer = String(decoding: try await onOwnThread { try connection.readUntilClosed() }, as: UTF8.self)
            #expect(statusLines(answer) == ["HTTP/1.1 400 Bad Request"], "\(answer.prefix(300))")
            #expect(answer.contains("\"kind\":\"chunk_line_too_long\""), "\(answer.prefix(300))")
            #expect(handler.rejections.withLock { $0 } == [.chunkLineTooLong(limit: 3_072)])
        }
        // A line within the buffer is read as any other.
        try await withTestServer(configuration()) { server, _ in
            let answer = try await exchange("PUT /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                                            + "3;" + String(repeating: "x", count: 1_000) + "\r\nabc\r\n0\r\n\r\n", port: server.port)
            #expect(answer.hasPrefix("HTTP/1.1 200 OK") && answer.contains("body=3"), "\(answer.prefix(300))")
        }
        // Without it: no answer and no close, the loop spinning on the connection until the body
        // deadline (2 s here, so that the spin does not take a core from the tests beside it).
        var spinning = configuration(without: .refuseLongChunkLines)
        spinning.bodyTimeout = .seconds(2)
        try await withTestServer(spinning) { server, handler in
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: request)
            #expect(!connection.isReadable(within: .seconds(1)), "MHD 0.9.75 neither answers nor closes")
            #expect(handler.rejections.withLock { $0 }.isEmpty)
            let answer = String(decoding: try await onOwnThread { try connection.readUntilClosed() }, as: UTF8.self)
            #expect(statusLines(answer) == ["HTTP/1.1 408 Request Timeout"], "the body deadline ends it: \(answer.prefix(200))")
        }
    }

    // MARK: Refusals libmicrohttpd makes itself

    /// `count` cookies of about 7 bytes each, as a browser sends them.
    private func cookieRequest(_ count: Int) -> String {
        let cookies = (0..<count).map { "c\($0)=v" }.joined(separator: "; ")
        return "GET /echo HTTP/1.1\r\nHost: x\r\nCookie: \(cookies)\r\nConnection: close\r\n\r\n"
    }

    @Test("a browser's many small cookies get the handler's 431, never an empty answer or MHD's page",
          arguments: [73, 80, 120, 200, 380, 400])
    func manyCookies(_ count: Int) async throws {
        try await withTestServer(configuration()) { server, _ in
            let answer = try await exchange(cookieRequest(count), port: server.port)
            let lines = statusLines(answer)
            #expect(lines.count == 1, "\(count) cookies: \(answer.prefix(300))")
            // A few cookies still fit the pool and are served; beyond, the handler's own 431.
            #expect(lines == ["HTTP/1.1 200 OK"] || (lines == ["HTTP/1.1 431 Request Header Fields Too Large"]
                && answer.contains("\"kind\":\"headers_too_large\"")), "\(count) cookies: \(answer.prefix(300))")
        }
    }

    @Test("without the workarounds, many cookies get no answer, or MHD's page, never the handler's", arguments: [120, 200, 400])
    func manyCookiesUnworked(_ count: Int) async throws {
        try await withTestServer(configuration(without: [.answerLibraryRefusals, .keepRoomForAnswer])) { server, handler in
            let answer = try await exchange(cookieRequest(count), port: server.port)
            #expect(answer.isEmpty || answer.contains("<html>"), "\(count) cookies: \(answer.prefix(300))")
            #expect(handler.rejections.withLock { $0 }.isEmpty)
        }
    }

    @Test("a 9 KB or 64 KB header section gets the handler's 431, not libmicrohttpd's HTML page", arguments: [9_000, 65_536])
    func oversizedHead(_ size: Int) async throws {
        let request = "GET /echo HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: size))\r\nConnection: close\r\n\r\n"
        try await withTestServer(configuration()) { server, handler in
            let answer = try await exchange(request, port: server.port)
            #expect(statusLines(answer) == ["HTTP/1.1 431 Request Header Fields Too Large"], "\(answer.prefix(300))")
            #expect(answer.contains("\"kind\":\"headers_too_large\""), "\(answer.prefix(300))")
            #expect(handler.rejections.withLock { $0 }.count == 1)
            #expect(server.unattributedLibraryRefusals == 0)
        }
        try await withTestServer(configuration(without: .answerLibraryRefusals)) { server, handler in
            let answer = try await exchange(request, port: server.port)
            #expect(answer.contains("<html>"), "MHD's own page: \(answer.prefix(300))")
            #expect(handler.rejections.withLock { $0 }.isEmpty)
        }
    }

    @Test("the fuzzer's shape (seed 1385219912, request 2:5688): many arguments and headers near the pool's edge are answered")
    func fuzzerShape() async throws {
        let target = "/echo?last_event_id=float&x=integer&as&=a+b&x=" + String(repeating: "a", count: 1_700)
        let request = "GET \(target) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(String(repeating: "t", count: 600))\r\n"
            + "If-Match: \"\(String(repeating: "1", count: 400))\"\r\nIf-None-Match: *\r\n"
            + "Cookie: \((0..<60).map { "k\($0)=\($0)" }.joined(separator: "; "))\r\nConnection: close\r\n\r\n"
        try await withTestServer(configuration()) { server, _ in
            let answer = try await exchange(request, port: server.port)
            #expect(statusLines(answer).count == 1, "\(answer.prefix(300))")
        }
    }

    /// The sweep behind ``RoomForAnswer``'s estimate: heads of every size up to past the pool, with
    /// many or few fields and cookies, each answered exactly once, by the handler.
    @Test("every head size from 3 KB to 7 KB, with few or many fields and cookies, gets exactly one answer from the handler",
          arguments: [0, 20, 60])
    func poolEdgeSweep(_ cookies: Int) async throws {
        try await withTestServer(configuration()) { server, handler in
            var unanswered: [String] = []
            for size in stride(from: 3_000, through: 7_000, by: 97) {
                for fields in [1, 12, 40] {
                    let cookieField = cookies == 0 ? "" : "Cookie: " + (0..<cookies).map { "c\($0)=v" }.joined(separator: "; ") + "\r\n"
                    var head = "GET /echo?a=1&b=2 HTTP/1.1\r\nHost: x\r\n\(cookieField)"
                    for index in 0..<fields { head += "X-F\(index): v\r\n" }
                    let padding = max(1, size - head.utf8.count - 30)
                    head += "X-Pad: \(String(repeating: "p", count: padding))\r\nConnection: close\r\n\r\n"
                    let answer = try await exchange(head, port: server.port)
                    let lines = statusLines(answer)
                    if lines.count != 1 || !(lines[0] == "HTTP/1.1 200 OK" || answer.contains("\"kind\":\"headers_too_large\"")) {
                        unanswered.append("size \(size), \(fields) fields, \(cookies) cookies: \(answer.prefix(120))")
                    }
                }
            }
            #expect(unanswered.isEmpty, "\(unanswered.count) heads: \(unanswered.prefix(5))")
            #expect(server.unattributedLibraryRefusals == 0)
            _ = handler
        }
    }
}

extension WorkaroundTests {
    @Test("the fuzzer's request 2:5688 of seed 1385219912 as sent: a refused 2.8 KB target with a pool nearly full gets its 414")
    func fuzzerRequestAsSent() async throws {
        let target = "/echo?last_event_id=float&x=integer&as&=a+b&x=" + String(repeating: "a", count: 2_797)
        let etag = "\"" + String(repeating: "9", count: 300) + "\""
        let request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(String(repeating: "T", count: 43))\r\n"
            + "If-Match: \(etag)\r\nIf-None-Match: \(etag)\r\nCookie: navprefs_stream=\(String(repeating: "a", count: 1_000))\r\n"
            + "Connection: close\r\n\r\n"
        try await withTestServer(configuration()) { server, handler in
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: request)
            let answer = String(decoding: try await onOwnThread { try connection.readUntilClosed() }, as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 414 "), "\(answer.prefix(300))")
            #expect(handler.rejections.withLock { $0 } == [.uriTooLong(limit: 2_048)])
        }
    }
}
