import Foundation
import HTTPTestClient
import MicroHTTPServer
import Synchronization
import Testing

@Suite("HTTPServer: streamed responses on suspend/resume")
struct StreamingTests {
    @Test("chunks written later reach the client, and the idle stream costs the event loop no CPU")
    func streamsLaterChunksWithoutBusyLoop() async throws {
        try await withTestServer { server, handler in
            let connection = try TestConnection(port: server.port)
            try await connection.send("GET", "/stream")
            let head = try await connection.readHead()
            #expect(head.status == 200)
            #expect(head.header("Transfer-Encoding")?.lowercased() == "chunked")
            #expect(try await connection.readStream(until: "first\n").hasSuffix("first\n"))

            // Idle: nothing queued, so the connection is suspended and the loop thread sleeps.
            let loopThread = try #require(server.eventLoopThreadID)
            let ticksBefore = try cpuTicks(ofThread: loopThread)
            try await Task.sleep(for: .seconds(1))
            let idleTicks = try cpuTicks(ofThread: loopThread) - ticksBefore
            // Clock ticks are 10 ms; a busy loop would burn about 100 of them in this second.
            #expect(idleTicks <= 2, "event loop used \(idleTicks) ticks while the stream was idle")

            let stream = try #require(handler.streams.withLock { $0.first })
            #expect(stream.write("second\n"))
            #expect(try await connection.readStream(until: "second\n").hasSuffix("second\n"))
            #expect(stream.write("third\n"))
            stream.finish()
            #expect(try await connection.readStream(until: "third\n").hasSuffix("third\n"))
            #expect(try await connection.readChunk() == nil, "the stream ends with the last chunk")
            try await Task.sleep(for: .milliseconds(100))
            #expect(handler.terminations.withLock { $0 } == [.finished])
            #expect(server.openStreams == 0)
        }
    }

    @Test("a client that goes away is noticed, at once (the event loop watches a suspended stream's socket)")
    func disconnectedClient() async throws {
        try await withTestServer { server, handler in
            do {
                let connection = try TestConnection(port: server.port)
                try await connection.send("GET", "/stream")
                _ = try await connection.readHead()
                _ = try await connection.readStream(until: "first\n")
            }  // connection closed here
            let stream = try #require(handler.streams.withLock { $0.first })
            #expect(await eventually { stream.isClosed ? true : nil } == true, "without a write")
            try await Task.sleep(for: .milliseconds(50))
            #expect(handler.terminations.withLock { $0 } == [.disconnected])
            #expect(server.openStreams == 0)
        }
    }

    @Test("a client that reads too slowly is dropped once its buffer limit is reached")
    func slowClient() async throws {
        var configuration = ServerConfiguration(port: 0)
        configuration.maxBufferedStreamBytes = 10_000
        try await withTestServer(configuration) { server, handler in
            let connection = try TestConnection(port: server.port)
            try await connection.send("GET", "/stream")
            _ = try await connection.readHead()
            let stream = try #require(await eventually { handler.streams.withLock { $0.first } })
            // The client reads nothing more: kernel buffers fill, then ours.
            var accepted = 0
            while stream.write(String(repeating: "y", count: 4_096)) && accepted < 100_000 { accepted += 1 }
            #expect(stream.isClosed)
            // libmicrohttpd is waiting for the full socket, so the server cuts the connection
            // (it would not ask the stream again): the stream ends within 2 s, as too slow.
            let ended = await eventually { handler.terminations.withLock { $0.isEmpty ? nil : $0 } }
            #expect(ended == [.tooSlow])
            _ = try connection.readUntilClosed()  // what was in flight, then the end: the connection is closed
        }
    }

    @Test("shutdown ends open streams cleanly, with the chunked terminator")
    func shutdownEndsStreams() async throws {
        let handler = TestHandler()
        let server = HTTPServer(configuration: ServerConfiguration(port: 0), handler: handler)
        try server.start()
        let connection = try TestConnection(port: server.port)
        try await connection.send("GET", "/stream")
        _ = try await connection.readHead()
        _ = try await connection.readStream(until: "first\n")
        await server.shutdown(gracePeriod: .seconds(2))
        #expect(try await connection.readChunk() == nil)
        #expect(handler.terminations.withLock { $0 } == [.finished])
        #expect(throws: (any Error).self) { try TestConnection(port: server.port) }
    }
}

/// Polls `probe` until it returns a value (at most two seconds).
func eventually<T>(_ probe: () -> T?) async -> T? {
    for _ in 0..<200 {
        if let value = probe() { return value }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return nil
}
