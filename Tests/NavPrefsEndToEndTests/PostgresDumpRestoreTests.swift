import Foundation
import HTTPTestClient
import Testing

/// What docs/operations.md promises of pg_dump and pg_restore: a dump taken while an instance serves,
/// restored into a new database, serves the same versions and event ids, and the next write
/// continues each profile's sequence (ids live in rows, not in PostgreSQL sequences).
@Suite("PostgreSQL: pg_dump and pg_restore", .serialized,
       .enabled(if: PostgresServer.url != nil, "set NAVPREFS_TEST_POSTGRES_URL (scripts/lib/postgres.sh start)"))
struct PostgresDumpRestoreTests {
    @Test("a pg_dump taken while the service serves restores with the same ETags and event ids; ids continue")
    func dumpAndRestore() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = try await PostgresServer.createDatabase()
        let (service, port) = try await ServiceProcess.start(url: source)
        for _ in 0..<4 { _ = try await TestHTTP.request(port: port, "POST", "/v1/profiles/mobile/counter/increment") }
        _ = try await TestHTTP.request(port: port, "PUT", "/v1/profiles/ana/defaults", json: #"{"theme":"light"}"#)
        _ = try await TestHTTP.request(port: port, "PUT", "/v1/profiles/ana/preferences/theme", json: #"{"value":"dark"}"#)
        _ = try await TestHTTP.request(port: port, "DELETE", "/v1/profiles/ana/preferences/theme")
        let before = try await Self.state(port: port)

        let dump = scratch.path("navprefs.dump")
        let dumped = try await onOwnThread { try shell("pg_dump -Fc -f '\(dump)' '\(source)'") }
        #expect(dumped.status == 0)
        await service.stop()
        let target = try await PostgresServer.createDatabase()
        let restored = try await onOwnThread { try shell("pg_restore --no-owner --exit-on-error -d '\(target)' '\(dump)'") }
        #expect(restored.status == 0)

        let (copy, copyPort) = try await ServiceProcess.start(url: target)
        #expect(try await Self.state(port: copyPort) == before)
        let stream = try await SSEClient.open(port: copyPort, path: "/v1/profiles/mobile/events", headers: [("Last-Event-ID", "2")])
        let next = try await TestHTTP.request(port: copyPort, "POST", "/v1/profiles/mobile/counter/increment")
        #expect(try next.json()["eventId"] as? Int == 5)
        #expect(try await stream.messages { $0.id == "5" }.compactMap(\.id) == ["3", "4", "5"])
        await copy.stop()
    }

    /// What clients see: status, ETag and body of the counter, the preferences and one key.
    static func state(port: Int) async throws -> [String] {
        var state: [String] = []
        for path in ["/v1/profiles/mobile/counter", "/v1/profiles/ana/preferences", "/v1/profiles/ana/preferences/theme",
                     "/v1/profiles/ana/defaults"] {
            let response = try await TestHTTP.request(port: port, "GET", path)
            state.append("\(path) \(response.status) \(response.header("ETag") ?? "-") \(response.text)")
        }
        return state
    }
}
