import HTTPTestClient
import MicroHTTPServer
import Synchronization
import Testing

/// Found by the hostile-client suite's fuzzer (scripts/hostile/fuzz.py): a refused target still
/// had its query arguments parsed into libmicrohttpd's connection pool, and enough of them
/// filled it, so the request got no answer at all instead of its refusal.
@Suite("HTTPServer: a refused target's query arguments never reach libmicrohttpd's pool")
struct TargetPoolTests {
    @Test("a 3 KB target with 47 query arguments gets the handler's 414, at the default 6 KiB pool", arguments: [
        (arguments: 47, valueBytes: 60),
        (arguments: 63, valueBytes: 40),
        (arguments: 20, valueBytes: 200),
    ])
    func longTargetWithArguments(arguments: Int, valueBytes: Int) async throws {
        try await withTestServer { server, handler in
            let query = (0..<arguments).map { "k\($0)=" + String(repeating: "a", count: valueBytes) }.joined(separator: "&")
            let target = "/echo?" + query
            #expect(target.utf8.count > 2_048)
            let response = try await TestHTTP.request(
                port: server.port, "GET", target, headers: [("Authorization", "Bearer " + String(repeating: "0", count: 77))])
            #expect(response.status == 414)
            #expect(handler.rejections.withLock { $0 } == [.uriTooLong(limit: 2_048)])
        }
    }

    @Test("%00 with many arguments gets the handler's 400")
    func escapedNULWithArguments() async throws {
        try await withTestServer { server, handler in
            let query = (0..<60).map { "k\($0)=" + String(repeating: "b", count: 40) }.joined(separator: "&")
            let response = try await TestHTTP.request(port: server.port, "GET", "/echo%00?" + query)
            #expect(response.status == 400)
            #expect(handler.rejections.withLock { $0 } == [.invalidRequestTarget])
        }
    }
}
