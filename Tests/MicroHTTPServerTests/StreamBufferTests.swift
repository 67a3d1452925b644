import Foundation
import HTTPTestClient
@testable import MicroHTTPServer
import Synchronization
import Testing

/// What a stream holds unsent is bounded per stream and in total (issue 31): a write past a
/// bound gives up the frames not started for the producer's replacement, never a frame in flight,
/// and the stream goes on; the total takes from the fullest streams first.
@Suite("Stream buffers: bounded per stream and in total, replaced not cut")
struct StreamBufferTests {
    /// A connection that never suspends; the test reads with ``drain(_:chunk:)``.
    struct Reader: StreamConnection {
        func suspend() {}
        func resume() {}
    }

    /// Reads up to `limit` bytes, `chunk` at a time, as libmicrohttpd's content reader would.
    func drain(_ stream: ResponseStream, chunk: Int = 7, limit: Int = .max) -> [UInt8] {
        var taken: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while taken.count < limit {
            let room = min(chunk, limit - taken.count)
            let result = buffer.withUnsafeMutableBytes { stream.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<room])) }
            guard case .bytes(let count) = result else { break }
            taken += buffer.prefix(count)
        }
        return taken
    }

    func frame(_ tag: Int, size: Int) -> [UInt8] {
        let head = Array("<\(tag):".utf8)
        return head + [UInt8](repeating: UInt8(ascii: "x"), count: max(0, size - head.count - 1)) + [UInt8(ascii: ">")]
    }

    func stream(bound: Int, budget: StreamBudget? = nil, id: Int = 1) -> ResponseStream {
        let stream = ResponseStream(connection: Reader(), maxBufferedBytes: bound, budget: budget, id: id)
        stream.onOverflow { lastTag in Array("<reset after \(lastTag)>".utf8) }
        return stream
    }

    @Test("a write past the bound: the frame in flight goes out whole, the rest and the new one give way to the replacement")
    func replacesWhatIsNotStarted() {
        let stream = stream(bound: 100)
        #expect(stream.write(frame(1, size: 40), tag: 1))
        #expect(stream.write(frame(2, size: 40), tag: 2))
        let started = drain(stream, limit: 10)  // the reader is inside frame 1
        #expect(stream.write(frame(3, size: 40), tag: 3), "the stream goes on")
        let rest = drain(stream)
        let text = String(decoding: started + rest, as: UTF8.self)
        #expect(text == String(decoding: frame(1, size: 40), as: UTF8.self) + "<reset after 3>", "\(text)")
        // It goes on: later frames are sent as before.
        #expect(stream.write(frame(4, size: 40), tag: 4))
        #expect(String(decoding: drain(stream), as: UTF8.self) == String(decoding: frame(4, size: 40), as: UTF8.self))
        #expect(!stream.isClosed)
    }

    @Test("between frames, every queued frame may give way; a frame larger than the bound becomes the replacement at once")
    func largeFrame() {
        let stream = stream(bound: 100)
        #expect(stream.write(frame(1, size: 30), tag: 1))
        #expect(drain(stream).count == 30)
        #expect(stream.write(frame(2, size: 250), tag: 2))
        #expect(String(decoding: drain(stream), as: UTF8.self) == "<reset after 2>")
        #expect(stream.write(frame(3, size: 250), tag: 3), "a fast reader gets a replacement each time, never the end")
        #expect(String(decoding: drain(stream), as: UTF8.self) == "<reset after 3>")
    }

    @Test("still full at the next overflow with nothing read since the replacement: ended as too slow")
    func tooSlow() {
        let budget = StreamBudget(limit: .max, perStreamLimit: 100)
        let stream = stream(bound: 100, budget: budget)
        let ended = Mutex<ResponseStream.Termination?>(nil)
        stream.onTermination { reason in ended.withLock { $0 = reason } }
        #expect(stream.write(frame(1, size: 60), tag: 1))
        #expect(stream.write(frame(2, size: 60), tag: 2))  // replaced
        #expect(stream.write(frame(3, size: 90), tag: 3) == false, "nothing was read since the replacement")
        #expect(stream.isClosed)
        #expect(budget.replacements == 1 && budget.cuts == 1)
        stream.terminated()
        #expect(ended.withLock { $0 } == .tooSlow)
        #expect(budget.held == 0)
    }

    @Test("without a replacement, a stream past its bound ends as too slow, as before")
    func noReplacement() {
        let stream = ResponseStream(connection: Reader(), maxBufferedBytes: 100, id: 1)
        #expect(stream.write(frame(1, size: 60)))
        #expect(stream.write(frame(2, size: 60)) == false)
        #expect(stream.isClosed)
    }

    @Test("the total: past it, the streams holding the most give way first, until three quarters are free of it")
    func totalTakesFromTheFullest() {
        let budget = StreamBudget(limit: 1_000, perStreamLimit: 1_000)
        let streams = (1...4).map { stream(bound: 1_000, budget: budget, id: $0) }
        // Held: 300, 280, 260 and 100 bytes, none read.
        for (stream, size) in zip(streams, [300, 280, 260, 100]) { #expect(stream.write(frame(9, size: size), tag: 9)) }
        #expect(budget.held == 940)
        #expect(streams[3].write(frame(10, size: 100), tag: 10))
        // 1,040 would pass 1,000: the fullest give way until at most 650 (three quarters, less
        // the new 100) are held: 300 (655 left, with its 15-byte replacement), then 280 (390).
        #expect(String(decoding: drain(streams[0]), as: UTF8.self) == "<reset after 9>")
        #expect(String(decoding: drain(streams[1]), as: UTF8.self) == "<reset after 9>")
        #expect(drain(streams[2]).count == 260)
        #expect(drain(streams[3]).count == 200)
        #expect(budget.replacements == 2)
        #expect(budget.held == 0)
        for stream in streams { stream.terminated() }
    }

    @Test("the budget counts what is queued and read exactly, whatever the pattern of reads and replacements")
    func accounting() {
        let budget = StreamBudget(limit: 10_000, perStreamLimit: 300)
        let stream = stream(bound: 300, budget: budget)
        var tag = 0
        for round in 0..<200 {
            tag += 1
            stream.write(frame(tag, size: 20 + (round * 37) % 150), tag: Int64(tag))
            if round % 3 == 0 { _ = drain(stream, chunk: 1 + round % 11, limit: 60) }
            if round % 7 == 0 { stream.write(Array(": beat\n".utf8)) }
            #expect(budget.held == stream.unsentBytes, "round \(round)")
        }
        _ = drain(stream)
        #expect(budget.held == 0)
        stream.terminated()
    }

    @Test("over sockets: a client that never reads keeps its stream (a reset, not the end) until it stays full", .timeLimit(.minutes(1)))
    func neverReadingClient() async throws {
        var configuration = ServerConfiguration(port: 0)
        configuration.maxBufferedStreamBytes = 20_000
        try await withTestServer(configuration) { server, handler in
            let connection = try TestConnection(port: server.port)
            try await connection.send("GET", "/stream")
            _ = try await connection.readHead()
            let stream = try #require(await eventually { handler.streams.withLock { $0.first } })
            stream.onOverflow { lastTag in Array("reset \(lastTag)\n".utf8) }
            // Fill the sockets, then ours: the first overflow is a replacement, the stream goes on.
            var tag: Int64 = 0
            while server.streamBudget.replacements == 0 && tag < 100_000 {
                tag += 1
                #expect(stream.write(Array(repeating: UInt8(ascii: "y"), count: 4_096), tag: tag))
            }
            #expect(server.streamBudget.replacements == 1 && !stream.isClosed)
            // Nothing read since: the next overflow ends it.
            while stream.write(Array(repeating: UInt8(ascii: "z"), count: 4_096), tag: tag) && tag < 200_000 { tag += 1 }
            #expect(stream.isClosed)
            #expect(await eventually { handler.terminations.withLock { $0.isEmpty ? nil : $0 } } == [.tooSlow])
            #expect(server.streamBudget.held == 0)
        }
    }

    @Test("over sockets: the kernel holds at most the stream socket's send buffer for a client that never reads", .timeLimit(.minutes(1)))
    func socketSendBuffer() async throws {
        var configuration = ServerConfiguration(port: 0)
        configuration.maxBufferedStreamBytes = 20_000
        configuration.streamSocketBufferBytes = 8_192
        try await withTestServer(configuration) { server, handler in
            let connection = try TestConnection(port: server.port, receiveBufferBytes: 4_096)
            try await connection.send("GET", "/stream")
            _ = try await connection.readHead()
            let stream = try #require(await eventually { handler.streams.withLock { $0.first } })
            stream.onOverflow { lastTag in Array("reset \(lastTag)\n".utf8) }
            // Written until the stream's own bound overflows, a frame at a time so that the
            // socket takes what it can between frames.
            var written = 0
            while server.streamBudget.replacements == 0 && written < 64 << 20 {
                #expect(stream.write(Array(repeating: UInt8(ascii: "y"), count: 1_024), tag: Int64(written)))
                written += 1_024
                if written % (16 << 10) == 0 { try await Task.sleep(for: .milliseconds(5)) }
            }
            // Its own bound, the socket's send buffer (the kernel reserves twice it), the client's
            // receive buffer, and libmicrohttpd's buffer in the connection's pool, with a frame's
            // slack. Left to itself, Linux grows the send buffer of such a socket to hundreds of KB.
            let bound = 20_000 + 2 * 8_192 + connection.receiveBufferBytes + configuration.connectionMemoryBytes + 1_024
            #expect(server.streamBudget.replacements == 1)
            #expect(written <= bound, "\(written) bytes written before the first reset, bound \(bound)")
        }
    }
}

/// Large answers are moved off the loop into memory of their own and counted (issue 31).
@Suite("Large answers: prepared by the thread that answers, counted until sent")
struct AnswerBudgetTests {
    @Test("a body at the threshold is prepared and counted until dropped; one that does not fit becomes the refusal")
    func budget() {
        let budget = AnswerBudget(threshold: 10, limit: 100)
        var small = HTTPResponse(status: 200, bytes: Array(repeating: 1, count: 9))
        budget.prepare(&small)
        #expect(small.prepared == nil && budget.held == 0, "under the threshold: as it was")
        var first = HTTPResponse(status: 200, bytes: Array(repeating: 2, count: 60))
        budget.prepare(&first)
        #expect(first.prepared?.bytes == Array(repeating: 2, count: 60))
        #expect(budget.held == 60)
        var second = HTTPResponse(status: 200, bytes: Array(repeating: 3, count: 60))
        budget.prepare(&second)
        #expect(second.prepared == nil && second.refusal == .answerBufferFull && budget.refused == 1)
        var notModified = HTTPResponse(status: 304, bytes: Array(repeating: 4, count: 60))
        budget.prepare(&notModified)
        #expect(notModified.prepared == nil && notModified.refusal == nil, "a 304 sends no body")
        first = HTTPResponse(status: 200)  // the prepared body is gone with the answer
        #expect(budget.held == 0)
    }

    @Test("over sockets: a large answer goes out whole, with its length, and its memory is freed once sent")
    func overSockets() async throws {
        var configuration = ServerConfiguration(port: 0)
        configuration.largeAnswerBytes = 1_000
        try await withTestServer(configuration) { server, _ in
            let connection = try TestConnection(port: server.port)
            try await connection.send("GET", "/echo?pad=" + String(repeating: "p", count: 1_500))
            let answer = try await connection.readResponse()
            #expect(answer.status == 200 && answer.body.count > 1_500 && answer.header("Content-Length") == String(answer.body.count))
            #expect(await eventually { server.answerBudget.held == 0 ? true : nil } == true)
        }
    }
}
