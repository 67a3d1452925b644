import Foundation
import HTTPTestClient
import MicroHTTPServer
import MicroHTTPServerTesting
import Synchronization
import Testing

/// The in-memory transport answers as the socket server does: each request below is sent to
/// both, each with its own ``TestHandler``, and the answers must be the same (status, the
/// handler's fields plus the framing, body). libmicrohttpd's `Date` and `Connection` are left
/// out: they belong to the socket.
@Suite("InMemoryHTTPTransport: the same answers as the socket server")
struct InMemoryTransportTests {
    /// What a client sees of an answer, minus what only a socket adds.
    struct Exchange: Equatable, CustomStringConvertible {
        var status: Int
        var fields: [String]
        var body: String

        init(status: Int, fields: [(String, String)], body: [UInt8]) {
            self.status = status
            self.fields = fields.filter { !["date", "connection"].contains($0.0.lowercased()) }
                .map { "\($0.0.lowercased()): \($0.1)" }.sorted()
            self.body = String(decoding: body, as: UTF8.self)
        }

        var description: String { "\(status) \(fields) \(body)" }
    }

    struct Shape: Sendable, CustomTestStringConvertible {
        var method: String
        var target: String
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        var testDescription: String { "\(method) \(target.prefix(60))" }
    }

    static let configuration: ServerConfiguration = {
        var configuration = ServerConfiguration(port: 0, maxBodyBytes: 1_000)
        configuration.maxQueryArguments = 8
        configuration.maxTargetBytes = 300
        return configuration
    }()

    static let shapes: [Shape] = [
        // 200: the query split and decoded as libmicrohttpd does (`+`, escapes, empty and bare names).
        Shape(method: "GET", target: "/echo?a=1&b=x+y&c=%41%zz&&d&e=", headers: [("X-Test", "yes")]),
        // 200: the path decoded, the raw path kept, its segments decoded one by one.
        Shape(method: "GET", target: "/raw/a%2Fb/%E2%82%AC/%zz"),
        Shape(method: "POST", target: "/echo", headers: [("Content-Type", "text/plain")], body: Array("hello".utf8)),
        // Admission answers 401 at once.
        Shape(method: "GET", target: "/guarded"),
        Shape(method: "POST", target: "/guarded", body: Array("unread".utf8)),
        // 413: over the route's limit (admission's), and over the server's.
        Shape(method: "POST", target: "/tiny", body: [UInt8](repeating: 65, count: 20)),
        Shape(method: "POST", target: "/echo", body: [UInt8](repeating: 65, count: 2_000)),
        // Admission decided later: proceeds with its admission context, or answers 403.
        Shape(method: "GET", target: "/admit-later?ms=30"),
        Shape(method: "GET", target: "/guarded-later?ms=30"),
        // The handler answers later: from a thread of its own, from a task.
        Shape(method: "GET", target: "/thread"),
        Shape(method: "GET", target: "/slow?ms=30"),
        // 304: the 200's length repeated, or none.
        Shape(method: "GET", target: "/not-modified?length=5"),
        Shape(method: "GET", target: "/not-modified-bytes"),
        Shape(method: "HEAD", target: "/echo"),
        // Refused below the handler: framing, the target, Host.
        Shape(method: "POST", target: "/echo", headers: [("Content-Length", "3"), ("Transfer-Encoding", "chunked")]),
        Shape(method: "POST", target: "/echo", headers: [("Content-Length", "3, 4")]),
        Shape(method: "GET", target: "/echo?" + (1...9).map { "a\($0)=1" }.joined(separator: "&")),
        Shape(method: "GET", target: "/echo/" + String(repeating: "x", count: 400)),
        Shape(method: "GET", target: "/a%00b"),
        Shape(method: "GET", target: "/echo", headers: [("Host", "[::1].evil.example")]),
        Shape(method: "GET", target: "/nowhere"),
    ]

    @Test("each shape gets the same answer in memory as over a socket", arguments: shapes)
    func sameAnswer(_ shape: Shape) async throws {
        try await withTestServer(Self.configuration) { server, _ in
            let connection = try TestConnection(port: server.port)
            let overSocket = try await connection.request(shape.method, shape.target, headers: shape.headers, body: shape.body)
            let transport = InMemoryHTTPTransport(handler: TestHandler(), configuration: Self.configuration)
            var fields = shape.headers
            if !fields.contains(where: { $0.0.lowercased() == "host" }) { fields.insert(("Host", "127.0.0.1:\(server.port)"), at: 0) }
            let inMemory = try await transport.execute(shape.method, shape.target, headers: fields, body: shape.body)
            #expect(inMemory.stream == nil)
            #expect(Exchange(status: inMemory.status, fields: inMemory.framedHeaders.map { ($0.name, $0.value) }, body: inMemory.body)
                == Exchange(status: overSocket.status, fields: overSocket.headers, body: overSocket.body))
            #expect(transport.bufferedBodyBytes == 0)
        }
    }

    @Test("an HTTP/1.1 request without Host is refused the same way (400 invalid_host)")
    func missingHost() async throws {
        try await withTestServer(Self.configuration) { server, handler in
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: "GET /echo HTTP/1.1\r\n\r\n")
            let overSocket = try await connection.readResponse()
            let memoryHandler = TestHandler()
            let transport = InMemoryHTTPTransport(handler: memoryHandler, configuration: Self.configuration)
            let inMemory = try await transport.execute("GET", "/echo")
            #expect(inMemory.status == 400)
            #expect(Exchange(status: inMemory.status, fields: inMemory.framedHeaders.map { ($0.name, $0.value) }, body: inMemory.body)
                == Exchange(status: overSocket.status, fields: overSocket.headers, body: overSocket.body))
            #expect(memoryHandler.rejections.withLock { $0 } == [.invalidHost])
            #expect(handler.rejections.withLock { $0 } == [.invalidHost])
        }
    }

    @Test("a stream: its head as on the socket, the first writes read as they come, then the client leaves")
    func stream() async throws {
        try await withTestServer(Self.configuration) { server, socketHandler in
            let connection = try TestConnection(port: server.port)
            try await connection.send("GET", "/stream")
            let socketHead = try await connection.readHead()
            #expect(try await connection.readChunk() == Array("first\n".utf8))

            let handler = TestHandler()
            let transport = InMemoryHTTPTransport(handler: handler, configuration: Self.configuration)
            let response = try await transport.execute("GET", "/stream", headers: [("Host", "127.0.0.1:\(server.port)")])
            #expect(Exchange(status: response.status, fields: response.framedHeaders.map { ($0.name, $0.value) }, body: [])
                == Exchange(status: socketHead.status, fields: socketHead.headers, body: []))
            let stream = try #require(response.stream)
            #expect(try await stream.next() == Array("first\n".utf8))
            #expect(transport.openStreams == 1)

            // A write from another thread wakes the waiting reader.
            let written = try #require(handler.streams.withLock { $0.first })
            let thread = Thread {
                usleep(20_000)
                written.write("second\n")
            }
            thread.start()
            #expect(try await stream.next() == Array("second\n".utf8))
            written.write("third\n")
            written.write("fourth\n")
            #expect(try await stream.text(until: "fourth") == "third\nfourth\n")

            stream.cancel()
            #expect(handler.terminations.withLock { $0 } == [.disconnected])
            #expect(!written.write("after\n"))
            #expect(transport.openStreams == 0)
            _ = socketHandler
        }
    }

    @Test("a stream the handler finishes ends after what it queued; HEAD of a stream never starts it")
    func finishedStreamAndHead() async throws {
        let handler = TestHandler()
        let transport = InMemoryHTTPTransport(handler: handler)
        let response = try await transport.execute("GET", "/stream", headers: [("Host", "localhost")])
        let stream = try #require(response.stream)
        let written = try #require(handler.streams.withLock { $0.first })
        written.write("last\n")
        written.finish()
        #expect(try await stream.text(until: "last") == "first\nlast\n")
        #expect(try await stream.next() == nil)
        #expect(handler.terminations.withLock { $0 } == [.finished])

        let head = try await transport.execute("HEAD", "/stream", headers: [("Host", "localhost")])
        #expect(head.status == 200)
        #expect(head.stream == nil && head.body.isEmpty && head.contentLength == nil)
        #expect(handler.streams.withLock { $0.count } == 1)
    }

    @Test("close: open streams end (cut without grace), and later requests get 503")
    func close() async throws {
        let handler = TestHandler()
        let transport = InMemoryHTTPTransport(handler: handler)
        let response = try await transport.execute("GET", "/stream", headers: [("Host", "localhost")])
        let stream = try #require(response.stream)
        #expect(try await stream.next() == Array("first\n".utf8))
        transport.close(gracefully: false)
        await #expect(throws: InMemoryHTTPTransport.Failure.closedWithoutAnswer) { try await stream.next() }
        #expect(handler.terminations.withLock { $0 } == [.serverShutdown])
        #expect(try await transport.execute("GET", "/echo", headers: [("Host", "localhost")]).status == 503)
        #expect(handler.rejections.withLock { $0 } == [.shuttingDown])
    }

    @Test("a handler that does not answer in time is a timeout, not a hang")
    func timeout() async throws {
        let transport = InMemoryHTTPTransport(handler: TestHandler())
        // `/held` is answered only when the test says: never, here (no race with a loaded machine).
        await #expect(throws: InMemoryHTTPTransport.Failure.timedOut) {
            try await transport.execute("GET", "/held", headers: [("Host", "localhost")], timeout: .milliseconds(50))
        }
        let stream = try #require(try await transport.execute("GET", "/stream", headers: [("Host", "localhost")]).stream)
        _ = try await stream.next()
        await #expect(throws: InMemoryHTTPTransport.Failure.timedOut) { try await stream.next(timeout: .milliseconds(50)) }
    }

    @Test("many requests at once, answered from threads and tasks, each get their own answer")
    func concurrent() async throws {
        let transport = InMemoryHTTPTransport(handler: TestHandler())
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<60 {
                group.addTask {
                    let target = ["/thread", "/slow?ms=5", "/admit-later?ms=5", "/echo?i=\(index)"][index % 4]
                    let response = try await transport.execute("GET", target, headers: [("Host", "localhost")])
                    return (response.status, String(decoding: response.body, as: UTF8.self))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 60)
        #expect(answers.allSatisfy { $0.0 == 200 })
        #expect(Set(answers.map(\.1).filter { $0.contains("i=") }).count == 15)
    }
}
