import Foundation
import HTTPTestClient
import NavPrefsApp
import Testing

/// A store damaged while the service runs (issue 32, item 5): the request that meets the damage
/// is 503 `storage-damaged` (was 500 `internal-error`, while `/readyz` said ready), and from then
/// on `/readyz` is 503 naming what was found; `/healthz` still answers (the process is alive).
@Suite("A store damaged while the service runs")
struct DamagedStoreAPITests {
    /// The service's file, with every write so far moved into it from the write-ahead log (by
    /// another connection, as an operator's `sqlite3` would): the pages read next come from the file.
    static func checkpointed(_ app: TestApp) throws -> String {
        let path = app.directory.appendingPathComponent("navprefs.sqlite").path
        let run = try runToEnd("/usr/bin/sqlite3", ["-bail", "-cmd", ".timeout 5000", path, "PRAGMA wal_checkpoint(TRUNCATE);"],
                               environment: ProcessInfo.processInfo.environment)
        try #require(run.status == 0 && run.output.hasPrefix("0|"), "checkpoint: \(run.output)")
        return path
    }

    /// Overwrites pages `pages` (1 is the first) of the file at `path` with `byte`.
    static func damage(_ path: String, pages: ClosedRange<Int>, with byte: UInt8 = 0x5A, pageSize: Int = 4_096) throws {
        let file = try #require(FileHandle(forWritingAtPath: path))
        defer { try? file.close() }
        for page in pages {
            try file.seek(toOffset: UInt64((page - 1) * pageSize))
            try file.write(contentsOf: Data(repeating: byte, count: pageSize))
        }
        try file.synchronize()
    }

    static func pageCount(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) / 4_096
    }

    @Test("pages of the tables damaged under a running service: 503 storage-damaged, then /readyz 503 for good")
    func damagedPages() async throws {
        try await withApp { app in
            for index in 0..<200 {
                #expect(try await app.request("PUT", "/v1/profiles/p\(index)/preferences/k", json: #"{"value":"\#(String(repeating: "x", count: 2_000))"}"#)
                    .status == 201)
            }
            #expect(try await app.request("GET", "/readyz").text.contains("ready"))
            let path = try Self.checkpointed(app)
            let pages = try Self.pageCount(path)
            try #require(pages > 100, "\(pages) pages")
            // Every page but the first (the header and the schema): whatever a request reads next is damaged.
            try Self.damage(path, pages: 2...pages)
            let read = try await app.request("GET", "/v1/profiles/p7/preferences")
            #expect(read.status == 503, "\(read.status) \(read.text)")
            #expect(try read.problemType() == "urn:navprefs:problem:storage-damaged")
            #expect(read.header("Retry-After") == nil, "retrying here does not help")
            let ready = try await app.request("GET", "/readyz")
            #expect(ready.status == 503)
            #expect(try ready.problemType() == "urn:navprefs:problem:storage-damaged")
            #expect(ready.text.contains("malformed") || ready.text.contains("corrupt"), "names what was found: \(ready.text)")
            let write = try await app.request("PUT", "/v1/profiles/p9/preferences/k", json: #"{"value":1}"#)
            #expect(write.status == 503, "\(write.status) \(write.text)")
            #expect(try await app.request("GET", "/healthz").status == 200, "the process is alive")
            #expect(try await app.request("GET", "/readyz").status == 503, "and stays not ready")
            let log = try String(contentsOfFile: app.logPath, encoding: .utf8)
            #expect(log.contains("store damaged: /readyz answers 503 from now on"))
        }
    }

    @Test("the file's header damaged under a running service (SQLITE_NOTADB): 503 storage-damaged, /readyz 503")
    func damagedHeader() async throws {
        try await withApp { app in
            for index in 0..<20 {
                #expect(try await app.request("POST", "/v1/profiles/p\(index)/counter/increment").status == 200)
            }
            let path = try Self.checkpointed(app)
            try Self.damage(path, pages: 1...1, with: 0x00, pageSize: 100)  // the 100-byte header
            let read = try await app.request("GET", "/v1/profiles/p3/preferences")
            #expect(read.status == 503, "\(read.status) \(read.text)")
            #expect(try read.problemType() == "urn:navprefs:problem:storage-damaged")
            let ready = try await app.request("GET", "/readyz")
            #expect(ready.status == 503, "\(ready.text)")
            #expect(try ready.problemType() == "urn:navprefs:problem:storage-damaged")
        }
    }
}
