import Foundation
import HTTPTestClient
import MicroHTTPServer
import Synchronization
import Testing

@Suite("HTTPServer: admission at the header fields, and the body budget")
struct AdmissionTests {
    @Test("an answer at admission reads no body: a large upload sent slowly is never buffered")
    func answerAtAdmissionBuffersNothing() async throws {
        try await withTestServer { server, handler in
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: "POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
            let response = try await connection.readResponse()
            #expect(response.status == 401)
            #expect(response.text == "no token\n")
            // The client goes on uploading, slowly: the server holds none of it and closes.
            let piece = [UInt8](repeating: 65, count: 20_000)
            var held = 0
            for _ in 0..<5 {
                try? await connection.send(raw: piece)
                held = max(held, server.bufferedBodyBytes)
                try await Task.sleep(for: .milliseconds(40))
            }
            #expect(held == 0)
            #expect(await connection.isClosedByServer(within: .seconds(2)))
            #expect(handler.handled.withLock { $0 }.isEmpty)
            #expect(server.bufferedBodyBytes == 0)
        }
    }

    @Test("an answer at admission to a request without a body keeps the connection")
    func answerWithoutBodyKeepsConnection() async throws {
        try await withTestServer { server, handler in
            let connection = try TestConnection(port: server.port)
            #expect(try await connection.request("GET", "/guarded").status == 401)
            #expect(try await connection.request("GET", "/echo").status == 200)
            #expect(handler.handled.withLock { $0 } == ["/echo"])
        }
    }

    @Test("Expect: 100-continue gets admission's final status, never 100 Continue")
    func expectContinueGetsFinalStatus() async throws {
        try await withTestServer { server, _ in
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: "POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n")
            let head = try await connection.readResponse()
            #expect(head.status == 401)
            #expect(await connection.isClosedByServer(within: .seconds(2)))
        }
    }

    @Test("a deferred admission reads nothing and sends no 100 Continue until it decides")
    func deferredAdmission() async throws {
        try await withTestServer { server, _ in
            let connection = try TestConnection(port: server.port)
            let started = ContinuousClock.now
            try await connection.send(raw: "POST /admit-later?ms=300 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let interim = try await connection.readHead()
            #expect(interim.status == 100)
            #expect(ContinuousClock.now - started >= .milliseconds(280), "100 Continue came before the decision")
            try await connection.send(raw: "hello")
            let response = try await connection.readResponse()
            #expect(response.status == 200)
            #expect(response.text.contains("body=5"))
            // The connection stays usable.
            #expect(try await connection.request("GET", "/echo").status == 200)

            let refused = try TestConnection(port: server.port)
            try await refused.send(raw: "POST /guarded-later?ms=100 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            #expect(try await refused.readResponse().status == 403)
        }
    }

    @Test("admission sets a request's own body limit")
    func perRequestLimit() async throws {
        try await withTestServer { server, handler in
            #expect(try await TestHTTP.request(port: server.port, "POST", "/tiny", body: Array("0123456789".utf8)).status == 200)
            let tooLarge = try await TestHTTP.request(port: server.port, "POST", "/tiny", body: [UInt8](repeating: 1, count: 50))
            #expect(tooLarge.status == 413)
            let connection = try TestConnection(port: server.port)
            try await connection.send(raw: "POST /tiny HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\nExpect: 100-continue\r\n\r\n")
            #expect(try await connection.readResponse().status == 413)
            #expect(handler.rejections.withLock { $0 } == [.payloadTooLarge(limit: 10), .payloadTooLarge(limit: 10)])
        }
    }

    @Test("bodies being received share a budget: beyond it 503 with Retry-After, released on completion and abort")
    func bodyBudget() async throws {
        var configuration = ServerConfiguration(port: 0)
        configuration.maxBufferedBodyBytes = 1_000
        try await withTestServer(configuration) { server, handler in
            let first = try TestConnection(port: server.port)
            try await first.send(raw: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 800\r\n\r\n" + String(repeating: "a", count: 100))
            #expect(await eventually { server.bufferedBodyBytes == 800 ? true : nil } == true)

            let second = try await TestHTTP.request(port: server.port, "POST", "/echo", body: [UInt8](repeating: 98, count: 800))
            #expect(second.status == 503)
            #expect(second.header("Retry-After") == "1")
            #expect(handler.rejections.withLock { $0 } == [.bodyBufferFull])

            try await first.send(raw: String(repeating: "a", count: 700))
            let done = try await first.readResponse()
            #expect(done.status == 200)
            #expect(done.text.contains("body=800"))
            #expect(server.bufferedBodyBytes == 0)

            // A client that leaves mid-body gives its share back.
            do {
                let leaving = try TestConnection(port: server.port)
                try await leaving.send(raw: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 900\r\n\r\nabc")
                #expect(await eventually { server.bufferedBodyBytes == 900 ? true : nil } == true)
            }
            #expect(await eventually { server.bufferedBodyBytes == 0 ? true : nil } == true)
            #expect(try await TestHTTP.request(port: server.port, "POST", "/echo", body: [UInt8](repeating: 99, count: 800)).status == 200)
        }
    }
}
