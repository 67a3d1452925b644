import Foundation
import HTTPTestClient
import MicroHTTPServer
import Synchronization
import Testing

/// Pieces of a streamed body sent straight to the socket while the stream's connection is
/// suspended (`SuspendedStreamSocket`): the framing on the wire is exactly libmicrohttpd's, in
/// order with what goes through the queue, and the event loop does not wake for them.
@Suite("HTTPServer: streamed pieces sent while the connection is suspended")
struct DirectStreamSendTests {
    /// Opens `/stream` and reads its first chunk; answers once the stream's connection is
    /// suspended again (nothing queued) and has nothing in flight.
    private func openStream(_ server: HTTPServer, _ handler: TestHandler, version: String = "HTTP/1.1")
        async throws -> (TestConnection, ResponseStream) {
        let connection = try TestConnection(port: server.port)
        try await connection.send(raw: "GET /stream \(version)\r\nHost: localhost\r\n\r\n")
        let head = try await connection.readHead()
        #expect(head.status == 200)
        for _ in 0..<400 where handler.streams.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(5)) }
        let stream = try #require(handler.streams.withLock { $0.first })
        try await Task.sleep(for: .milliseconds(100))  // the reader suspended, the ACKs came back
        return (connection, stream)
    }

    @Test("small pieces go out directly, framed as chunks, in order with large ones that take the queue")
    func framingAndOrder() async throws {
        try await withTestServer { server, handler in
            let (connection, stream) = try await openStream(server, handler)
            #expect(try await connection.readChunk() == Array("first\n".utf8))
            let before = server.directStreamSends

            #expect(stream.write(": heartbeat\n\n"))
            #expect(server.directStreamSends == before + 1, "an idle stream's small piece went out directly")
            #expect(try await connection.readChunk() == Array(": heartbeat\n\n".utf8))

            // A piece larger than a direct send takes the queue (the loop resumes the connection).
            let large = [UInt8](repeating: UInt8(ascii: "L"), count: 10_000)
            #expect(stream.write(large))
            #expect(server.directStreamSends == before + 1)
            var received: [UInt8] = []
            while received.count < large.count { received += try #require(try await connection.readChunk()) }
            #expect(received == large)

            // A burst: the first pieces may go directly, the rest queue behind them; the client
            // reads every byte once, in order, in well-formed chunks.
            try await Task.sleep(for: .milliseconds(100))
            var expected: [UInt8] = []
            for index in 0..<300 {
                let piece = Array("event \(index)\n".utf8)
                expected += piece
                #expect(stream.write(piece))
            }
            stream.finish()
            var burst: [UInt8] = []
            while let chunk = try await connection.readChunk() { burst += chunk }
            #expect(burst == expected)
            #expect(server.directStreamSends > before + 1, "the burst's first piece went out directly")
            try await Task.sleep(for: .milliseconds(100))
            #expect(handler.terminations.withLock { $0 } == [.finished])
        }
    }

    @Test("an HTTP/1.0 stream is not chunked: its pieces always take the queue")
    func http10() async throws {
        try await withTestServer { server, handler in
            let (connection, stream) = try await openStream(server, handler, version: "HTTP/1.0")
            #expect(try connection.readChunkless(6) == Array("first\n".utf8))
            let before = server.directStreamSends
            #expect(stream.write("second\n"))
            #expect(try connection.readChunkless(7) == Array("second\n".utf8))
            #expect(server.directStreamSends == before)
            stream.finish()
            #expect(try connection.readUntilClosed().isEmpty)
        }
    }

    @Test("idle stream pieces do not wake the event loop")
    func loopStaysAsleep() async throws {
        try await withTestServer { server, handler in
            let (connection, stream) = try await openStream(server, handler)
            _ = try await connection.readChunk()
            let loopThread = try #require(server.eventLoopThreadID)
            let before = server.directStreamSends
            let ticksBefore = try cpuTicks(ofThread: loopThread)
            for index in 0..<200 {
                #expect(stream.write(": heartbeat \(index)\n\n"))
                #expect(try await connection.readChunk() == Array(": heartbeat \(index)\n\n".utf8))
            }
            let ticks = try cpuTicks(ofThread: loopThread) - ticksBefore
            // Each piece is read before the next is written, so the socket is idle again, unless
            // the client's acknowledgement is still on its way (a delayed ACK): then that piece
            // takes the queue. Nearly all go out directly.
            #expect(server.directStreamSends - before >= 180, "\(server.directStreamSends - before) of 200 went out directly")
            // 200 pieces through the loop cost about 5 ms (26 µs each); sent directly, the loop
            // only wakes on its own 50 ms timer. Ticks are 10 ms.
            #expect(ticks <= 2, "the event loop used \(ticks) ticks")
        }
    }
}
