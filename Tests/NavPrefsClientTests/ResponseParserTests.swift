import Foundation
@testable import NavPrefsClient
import Testing

/// The Linux HTTP/1.1 reader's parser, fed the way sockets deliver: in pieces that cut through
/// the head, chunk sizes and CRLFs anywhere.
@Suite("The client's HTTP/1.1 answer parser")
struct ResponseParserTests {
    /// Feeds `text` in pieces of `size` bytes; the head, the body joined, and whether it ended.
    static func parse(_ text: String, pieces size: Int) throws -> (status: Int, headers: [String: String], body: String, ended: Bool) {
        var parser = ResponseParser()
        var status = 0, headers: [String: String] = [:], body = Data(), ended = false
        let bytes = Array(text.utf8)
        for start in stride(from: 0, to: bytes.count, by: size) {
            for output in try parser.feed(bytes[start..<min(start + size, bytes.count)]) {
                switch output {
                case .head(let code, let fields): (status, headers) = (code, fields)
                case .body(let data): body.append(data)
                case .end: ended = true
                }
            }
        }
        return (status, headers, String(decoding: body, as: UTF8.self), ended)
    }

    @Test("Content-Length, chunked with extensions and trailers, and up to the close, in every piece size", arguments: [1, 2, 3, 7, 64, 4096])
    func framings(size: Int) throws {
        let fixed = try Self.parse("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"value\":1}", pieces: size)
        #expect(fixed.status == 200 && fixed.headers["content-type"] == "application/json" && fixed.body == #"{"value":1}"# && fixed.ended)

        let chunked = try Self.parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=x\r\nid: 1\r\nb\r\n\ndata: {}\n\n\r\n0\r\nTrailer: x\r\n\r\n", pieces: size)
        #expect(chunked.body == "id: 1\ndata: {}\n\n" && chunked.ended)

        let open = try Self.parse("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n: heartbeat\n\n", pieces: size)
        #expect(open.body == ": heartbeat\n\n" && !open.ended, "ends only when the connection does")
    }

    @Test("no body for 204 and 304; a repeated field joined; garbage refused")
    func edges() throws {
        #expect(try Self.parse("HTTP/1.1 304 Not Modified\r\nETag: \"7\"\r\n\r\n", pieces: 5).ended)
        #expect(try Self.parse("HTTP/1.1 204 No Content\r\n\r\n", pieces: 5).body.isEmpty)
        #expect(try Self.parse("HTTP/1.1 200 OK\r\nVary: a\r\nVary: b\r\nContent-Length: 0\r\n\r\n", pieces: 3).headers["vary"] == "a, b")
        #expect(throws: ResponseParser.Failure.self) { try Self.parse("SSH-2.0-OpenSSH\r\n\r\n", pieces: 4) }
        #expect(throws: ResponseParser.Failure.self) { try Self.parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", pieces: 4) }
    }
}
