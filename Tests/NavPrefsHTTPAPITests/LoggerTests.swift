import Foundation
import NavPrefsHTTPAPI
import Testing

/// The request line's fast path writes what the general path writes.
@Suite("Logger: the request line")
struct LoggerTests {
    /// Lines written through a pipe, without their timestamps (the one part that differs).
    static func lines(_ write: (Logger) -> Void) throws -> [String] {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        // The sink is never started, so it writes each line at once; it must not close the
        // write end too: the close below is the one (a second close, when the sink went away,
        // hit whatever reused the number: another test's database, which then failed with
        // "disk I/O error").
        let logger = Logger(level: .info, format: .json, sink: LogSink(descriptor: ends[1], closesDescriptor: false))
        write(logger)
        logger.flush()
        close(ends[1])
        let data = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true).readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            String($0).replacing(/"ts":"[^"]*"/, with: #""ts":"*""#)
        }
    }

    @Test("Logger.request writes byte for byte the line of log(.info, \"request\", fields), escapes included",
          arguments: [("f00d-1", "GET", "/v1/profiles/{profile}/counter", 200, Int64(1_234), "127.0.0.1"),
                      ("id \"quoted\"\\", "PROPFIND", "-", 405, Int64(-7), "::1"),
                      ("é\u{1}", "GET", "/healthz", 503, Int64(0), "-")])
    func sameLine(id: String, method: String, route: String, status: Int, microseconds: Int64, remote: String) throws {
        let lines = try Self.lines { logger in
            logger.request(id: id, method: method, route: route, status: status, microseconds: microseconds, remote: remote)
            logger.log(.info, "request", [("request_id", .string(id)), ("method", .string(method)), ("route", .string(route)),
                                          ("status", .integer(Int64(status))), ("duration_ms", .milliseconds(microseconds: microseconds)),
                                          ("remote", .string(remote))])
        }
        #expect(lines.count == 2)
        #expect(lines.first == lines.last)
        #expect((try? JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8))) != nil, "the line is JSON")
    }
}
