import Foundation
import HTTPTestClient
import MicroHTTPServer
import Testing

@Suite("HTTPServer: body limit, framing, connection limits, idle timeout, shutdown")
struct LimitsTests {
    static let small = ServerConfiguration(port: 0, maxBodyBytes: 1_000, maxDiscardBytes: 100_000)

    @Test("413 before the upload when the client expects 100-continue")
    func rejectsBeforeUpload() async throws {
        try await withTestServer(Self.small) { server, _ in
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n")
            let response = try await connection.readResponse()
            #expect(response.status == 413)
        }
    }

    @Test("413 after the body is read, for a client that writes the whole body first")
    func rejectsAfterDiscarding() async throws {
        try await withTestServer(Self.small) { server, _ in
            let connection = try TestConnection(port: server.port)
            let response = try await connection.request("POST", "/echo", body: Array(repeating: 65, count: 50_000))
            #expect(response.status == 413)
            // The body was consumed, so the connection is still in sync.
            #expect(try await connection.request("GET", "/echo").status == 200)
        }
    }

    @Test("413 for an oversized chunked body")
    func rejectsChunked() async throws {
        try await withTestServer(Self.small) { server, _ in
            let connection = try TestConnection(port: server.port)
            let chunk = String(repeating: "z", count: 600)
            let body = "258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n"
            try await connection.send(raw: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(body)")
            #expect(try await connection.readResponse().status == 413)
        }
    }

    @Test("a body at the limit is accepted")
    func acceptsAtLimit() async throws {
        try await withTestServer(Self.small) { server, _ in
            let response = try await TestHTTP.request(port: server.port, "POST", "/echo", body: Array(repeating: 66, count: 1_000))
            #expect(response.status == 200)
            #expect(response.text.contains("body=1000"))
        }
    }

    @Test("beyond the discard budget the server answers 413 at once and closes")
    func stopsDiscarding() async throws {
        try await withTestServer(Self.small) { server, _ in
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n")
            // Write more than the discard budget (100 kB), tolerating the server closing on us.
            let piece = [UInt8](repeating: 67, count: 10_000)
            for _ in 0..<30 { try? await connection.send(raw: piece) }
            // Answering in the middle of an upload can lose the 413 to the connection reset (what
            // every client sees in that case); either way the server must end the exchange promptly.
            do {
                #expect(try await connection.readResponse().status == 413)
            } catch let error as TestClientError {
                guard case .closed = error else { throw error }
            }
            #expect(try await TestHTTP.request(port: server.port, "GET", "/echo").status == 200)
        }
    }

    @Test("conflicting Content-Length fields are refused with 400", arguments: [
        "Content-Length: 5\r\nContent-Length: 6\r\n",
        "Content-Length: 5, 6\r\n",
        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
    ])
    func conflictingFraming(fields: String) async throws {
        try await withTestServer(Self.small) { server, _ in
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: "POST /echo HTTP/1.1\r\nHost: x\r\n\(fields)\r\nhello!")
            #expect(try await connection.readResponse().status == 400)
        }
    }

    @Test("identical repeated Content-Length fields are accepted (RFC 9112 6.3)")
    func repeatedIdenticalLength() async throws {
        try await withTestServer(Self.small) { server, _ in
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello")
            #expect(try await connection.readResponse().status == 200)
        }
    }

    @Test("HTTP/1.1 without Host is refused with 400")
    func missingHost() async throws {
        try await withTestServer { server, _ in
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: "GET /echo HTTP/1.1\r\n\r\n")
            #expect(try await connection.readResponse().status == 400)
        }
    }

    @Test("the per-IP connection limit refuses one address's extra connections, not another's")
    func perIPLimit() async throws {
        var configuration = ServerConfiguration(port: 0)
        configuration.maxConnectionsPerIP = 3
        try await withTestServer(configuration) { server, _ in
            let held = try (0..<3).map { _ in try TestConnection(port: server.port) }
            for connection in held { #expect(try await connection.request("GET", "/echo").status == 200) }
            let extra = try TestConnection(port: server.port)
            await #expect(throws: (any Error).self) { try await extra.request("GET", "/echo") }
            let other = try TestConnection(port: server.port, sourceAddress: "127.0.0.2")
            #expect(try await other.request("GET", "/echo").status == 200)
        }
    }

    @Test("an idle connection is closed after the idle timeout")
    func idleTimeout() async throws {
        var configuration = ServerConfiguration(port: 0)
        configuration.idleTimeoutSeconds = 1
        try await withTestServer(configuration) { server, _ in
            let connection = try TestConnection(port: server.port)
            #expect(try await connection.request("GET", "/echo").status == 200)
            #expect(await connection.isClosedByServer(within: .seconds(3)))
        }
    }

    @Test("shutdown lets a request in flight finish, then refuses connections")
    func gracefulShutdown() async throws {
        let server = HTTPServer(configuration: ServerConfiguration(port: 0), handler: TestHandler())
        try server.start()
        let port = server.port
        let inFlight = TestHTTP.startThreads(1) { _ in try TestHTTP.request(port: port, "GET", "/slow?ms=300") }
        try await Task.sleep(for: .milliseconds(100))
        await server.shutdown(gracePeriod: .seconds(3))
        let response = try await inFlight[0].value
        #expect(response.status == 200)
        #expect(response.text == "slept 300")
        #expect(throws: (any Error).self) { try TestConnection(port: port) }
    }

    @Test("work still running after the grace period is answered 503")
    func shutdownAfterGrace() async throws {
        let server = HTTPServer(configuration: ServerConfiguration(port: 0), handler: TestHandler())
        try server.start()
        let port = server.port
        let inFlight = TestHTTP.startThreads(1) { _ in try TestHTTP.request(port: port, "GET", "/slow?ms=10000") }
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        await server.shutdown(gracePeriod: .milliseconds(300))
        // Well before the work would end (10 s), with room for a loaded machine.
        #expect(ContinuousClock.now - started < .seconds(6))
        #expect(try await inFlight[0].value.status == 503)
    }
}
