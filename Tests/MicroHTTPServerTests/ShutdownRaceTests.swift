import Foundation
import HTTPTestClient
@testable import MicroHTTPServer
import Synchronization
import Testing

/// The moment `shutdown` ends with: the event loop stops while a request still waits for its
/// answer, and another arrives on a keep-alive connection. Before the loop decided this itself,
/// a request handed off after shutdown's last look left its connection suspended, and
/// libmicrohttpd's `MHD_stop_daemon` panicked ("called while we have suspended connections"):
/// the process aborted, and a write committed by then was never acknowledged.
@Suite("HTTPServer: stopping the event loop while requests wait")
struct ShutdownRaceTests {
    @Test("a request waiting for its answer gets it, one arriving during the stop gets 503, and the stop completes")
    func stopWhileSuspended() async throws {
        let handler = TestHandler()
        var configuration = ServerConfiguration(port: 0)
        configuration.stopPatience = .seconds(60)  // the test answers the held request itself
        let server = HTTPServer(configuration: configuration, handler: handler)
        try server.start()
        let port = server.port
        let keptAlive = try TestConnection(port: port)
        #expect(try await keptAlive.request("GET", "/echo").status == 200)
        let waiting = TestHTTP.startThreads(1) { _ in try TestHTTP.request(port: port, "GET", "/held") }
        for _ in 0..<2_000 where handler.held.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(5)) }
        try #require(!handler.held.withLock { $0.isEmpty })

        let stopped = TestHTTP.startThreads(1) { _ in server.stopWithoutGrace() }
        for _ in 0..<2_000 where !server.core.closing.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        let late = try await keptAlive.request("GET", "/echo")
        #expect(late.status == 503, "a request reaching its handler while the loop stops is not handed off")
        #expect(late.header("Connection")?.lowercased() == "close")
        #expect(handler.rejections.withLock { $0.contains { $0.kind == HTTPRejection.shuttingDown.kind } })
        #expect(!handler.handled.withLock { $0 }.dropFirst(2).contains("/echo"), "the late request never reached the handler")

        handler.release(with: 200)
        let answer = try await waiting[0].value
        #expect(answer.status == 200, "the request handed off before the stop gets its own answer")
        #expect(answer.text == "released")
        try await stopped[0].value
        #expect(server.requestsInFlight == 0)
        #expect(throws: (any Error).self) { try TestConnection(port: port) }
    }

    @Test("a request whose answer never comes is answered 503 after the stop's patience, and the stop completes")
    func stopWithWorkThatNeverEnds() async throws {
        let handler = TestHandler()
        var configuration = ServerConfiguration(port: 0)
        configuration.stopPatience = .milliseconds(200)
        let server = HTTPServer(configuration: configuration, handler: handler)
        try server.start()
        let port = server.port
        let waiting = TestHTTP.startThreads(1) { _ in try TestHTTP.request(port: port, "GET", "/held") }
        for _ in 0..<2_000 where handler.held.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(5)) }
        let stopped = TestHTTP.startThreads(1) { _ in server.stopWithoutGrace() }
        #expect(try await waiting[0].value.status == 503)
        try await stopped[0].value
        handler.release(with: 200)  // too late: ignored, and nothing touches the stopped daemon
    }
}
