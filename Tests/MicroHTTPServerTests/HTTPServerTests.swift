import Foundation
import HTTPTestClient
import MicroHTTPServer
import Synchronization
import Testing

@Suite("HTTPServer: requests, responses, keep-alive, deferred work")
struct HTTPServerTests {
    @Test("port 0 binds an ephemeral port that can be read back")
    func ephemeralPort() async throws {
        try await withTestServer { server, _ in
            #expect(server.port > 0)
            let response = try await TestHTTP.request(port: server.port, "GET", "/echo")
            #expect(response.status == 200)
        }
    }

    @Test("method, path, query, headers, body and peer address reach the handler")
    func requestValues() async throws {
        try await withTestServer { server, _ in
            let response = try await TestHTTP.request(
                port: server.port, "POST", "/echo?a=1&b&c=x%20y", headers: [("X-Test", "yes")], body: Array("12345".utf8))
            #expect(response.text == "POST /echo q[a=1&b=<nil>&c=x y] body=5 x-test=yes remote=127.0.0.1")
        }
    }

    @Test("keep-alive survives many requests, GET and POST alike (answers come on the last handler call)")
    func keepAlive() async throws {
        try await withTestServer { server, _ in
            let connection = try TestConnection(port: server.port)
            for index in 0..<20 {
                let method = index.isMultiple(of: 2) ? "GET" : "POST"
                let response = try await connection.request(method, "/echo", body: method == "POST" ? Array("x".utf8) : [])
                #expect(response.status == 200)
                #expect(response.header("Connection")?.lowercased() != "close")
            }
            let closed = await connection.isClosedByServer(within: .milliseconds(100))
            #expect(!closed)
        }
    }

    @Test("a deferred response arrives, on a connection that stays usable")
    func deferredResponse() async throws {
        try await withTestServer { server, _ in
            let connection = try TestConnection(port: server.port)
            let slow = try await connection.request("GET", "/slow?ms=50")
            #expect(slow.status == 200)
            #expect(slow.text == "slept 50")
            let next = try await connection.request("GET", "/echo")
            #expect(next.status == 200)
        }
    }

    @Test("deferred work does not stall other connections")
    func deferredWorkDoesNotStall() async throws {
        try await withTestServer { server, handler in
            let port = server.port
            // `/held` is answered only when the test releases it: while it is deferred, 50 quick
            // requests on another connection must be answered (a loop that waited on deferred
            // work would answer none of them). No clock is involved, so a loaded machine cannot
            // fail this test, only slow it.
            let held = TestHTTP.startThreads(1) { _ in
                try TestConnection(port: port, timeout: .seconds(120)).request("GET", "/held")
            }
            while handler.held.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(5)) }
            let quick = try TestConnection(port: port, timeout: .seconds(60))
            for _ in 0..<50 {
                #expect(try await quick.request("GET", "/echo").status == 200)
            }
            #expect(handler.held.withLock { $0.count } == 1, "the held request is still unanswered")
            handler.release(with: 200)
            #expect(try await held[0].value.status == 200)
        }
    }

    @Test("a resumed connection is served at once, not at the event loop's next timeout")
    func resumeWakesTheLoop() async throws {
        // With the loop's safety-net timeout at 60 s, any deferred answer that waits for the
        // timeout instead of being woken by its resume stalls for 60 s (the client gives up after
        // 20 s), whatever the machine's load. `/thread` answers from a thread of its own, as a
        // store's writer does, so Swift's task pool (which other suites may keep busy) plays no
        // part; the bound is a third of the timeout, far above any answer that was woken.
        var configuration = ServerConfiguration(port: 0)
        configuration.maxEventLoopWait = .seconds(60)
        try await withTestServer(configuration) { server, _ in
            let port = server.port
            let slowest = try await TestHTTP.onThreads(1) { _ in
                let connection = try TestConnection(port: port, timeout: .seconds(20))
                var slowest = Duration.zero
                for _ in 0..<40 {
                    let started = ContinuousClock.now
                    guard try connection.request("GET", "/thread").status == 200 else { throw TestClientError.timeout }
                    slowest = max(slowest, ContinuousClock.now - started)
                }
                return slowest
            }[0]
            #expect(slowest < .seconds(20), "a deferred answer took \(slowest)")
        }
    }

    @Test("many deferred requests in flight at once are each answered once")
    func concurrentDeferred() async throws {
        try await withTestServer { server, _ in
            let port = server.port
            let statuses = try await TestHTTP.onThreads(16) { _ in
                let connection = try TestConnection(port: port)
                return try (0..<10).map { _ in try connection.request("GET", "/slow?ms=5").status }
            }
            #expect(statuses.flatMap { $0 } == Array(repeating: 200, count: 160))
            #expect(server.requestsInFlight == 0)
        }
    }
}
