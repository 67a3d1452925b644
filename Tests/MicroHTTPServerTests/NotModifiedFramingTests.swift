import Foundation
import HTTPTestClient
import MicroHTTPServer
import Testing

/// RFC 9110 §8.6 on the wire: a 304 may repeat the `Content-Length` of the 200 it stands for,
/// and must send no other. libmicrohttpd 0.9.75 adds the length of whatever buffer it is given,
/// so an empty one said `Content-Length: 0` (``HTTPBody/omitted(representationLength:)``).
@Suite("304 framing: the 200's Content-Length or none, never a made-up one")
struct NotModifiedFramingTests {
    @Test("RFC 9110 §8.6: a 304 with the 200's length says exactly it, sends no body, and keeps the connection")
    func representationLength() async throws {
        try await withTestServer { server, _ in
            let connection = try TestConnection(port: server.port)
            try await connection.send("GET", "/not-modified?length=123")
            let head = try await connection.readHead()
            #expect(head.status == 304)
            #expect(head.header("ETag") == "\"7\"")
            #expect(head.headers.filter { $0.0.lowercased() == "content-length" }.map(\.1) == ["123"])
            #expect(head.header("Transfer-Encoding") == nil)
            #expect(head.header("Connection") == nil)
            // No body: the next bytes on the connection are the next answer's status line.
            let next = try await connection.request("GET", "/echo")
            #expect(next.status == 200)
            #expect(next.text.hasPrefix("GET /echo"))
        }
    }

    @Test("RFC 9110 §8.6: a 304 without a known length sends no Content-Length (and closes, MHD's only unframed head)")
    func noLength() async throws {
        try await withTestServer { server, _ in
            for path in ["/not-modified", "/not-modified-bytes"] {
                let connection = try TestConnection(port: server.port)
                try await connection.send("GET", path)
                let head = try await connection.readHead()
                #expect(head.status == 304, "\(path)")
                #expect(head.header("ETag") == "\"7\"", "\(path)")
                #expect(head.header("Content-Length") == nil, "\(path)")
                #expect(head.header("Transfer-Encoding") == nil, "\(path)")
                #expect(try connection.readUntilClosed().isEmpty, "\(path): no body, then the close")
            }
        }
    }

    @Test("RFC 9110 §9.3.2: HEAD with a matching condition gets the same 304 head as GET")
    func headRequest() async throws {
        try await withTestServer { server, _ in
            let connection = try TestConnection(port: server.port)
            try await connection.send("HEAD", "/not-modified?length=9")
            let head = try await connection.readHead()
            #expect(head.status == 304)
            #expect(head.header("Content-Length") == "9")
            #expect(try await connection.request("GET", "/echo").status == 200)
        }
    }
}
