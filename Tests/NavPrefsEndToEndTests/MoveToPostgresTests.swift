import Foundation
import HTTPTestClient
import Testing

/// Moving a store from SQLite to PostgreSQL as docs/operations.md says (stop the
/// service, export, import, start on the new store) with the real binary: clients keep their
/// ETags and Last-Event-IDs, tokens and stream tokens keep working, and the way back to SQLite
/// gives the first export byte for byte. Needs `NAVPREFS_TEST_POSTGRES_URL`.
@Suite("Moving from SQLite to PostgreSQL", .serialized,
       .enabled(if: PostgresServer.url != nil, "set NAVPREFS_TEST_POSTGRES_URL (scripts/lib/postgres.sh start)"))
struct MoveToPostgresTests {
    @Test("subscribers connected before the move resume after it with their last id and miss nothing; ETags, tokens and the way back are exact")
    func moveAndResume() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let sqlite = "sqlite:" + scratch.path("before.sqlite")
        let made = try await NavPrefsCommand.run(["tokens", "create", "--admin", "--label", "ops", "--database", sqlite])
        #expect(made.status == 0, "\(made)")
        let auth = [("Authorization", "Bearer " + made.output.trimmingCharacters(in: .whitespacesAndNewlines))]
        let (before, port) = try await ServiceProcess.start(url: sqlite)

        // A subscriber that stays until the move, and one that leaves after id 3.
        let staying = try await SSEClient.open(port: port, path: "/v1/profiles/mobile/events?last_event_id=0", headers: auth)
        let leaving = try await SSEClient.open(port: port, path: "/v1/profiles/mobile/events?last_event_id=0", headers: auth)
        for _ in 0..<3 { _ = try await TestHTTP.request(port: port, "POST", "/v1/profiles/mobile/counter/increment", headers: auth) }
        #expect(try await leaving.messages { $0.id == "3" }.compactMap(\.id) == ["1", "2", "3"])
        for _ in 0..<2 { _ = try await TestHTTP.request(port: port, "POST", "/v1/profiles/mobile/counter/increment", headers: auth) }
        _ = try await TestHTTP.request(port: port, "PUT", "/v1/profiles/ana/preferences/theme", headers: auth, json: #"{"value":"dark"}"#)
        _ = try await TestHTTP.request(port: port, "PUT", "/v1/profiles/ana/font", headers: auth, json: #"{"sliderValue":2.5}"#)
        let session = try await TestHTTP.request(port: port, "POST", "/v1/profiles/nav/sessions", headers: auth,
                                                 json: #"{"root":{"id":"home"}}"#)
        let sessionPath = try #require(session.header("Location"))
        let streamToken = try #require(try await TestHTTP.request(port: port, "POST", "/v1/profiles/mobile/events/token", headers: auth)
            .json()["token"] as? String)
        let tags = try await Self.etags(port: port, auth: auth, session: sessionPath)

        // The move: stop the service (its streams end with `shutdown`), export, import, start on PostgreSQL.
        await before.stop()
        let seen = try await staying.messages { $0.event == "shutdown" }.compactMap(\.id).filter { $0 != "0" }
        #expect(seen.last == "5")
        let file = scratch.path("move.ndjson")
        let export = try await NavPrefsCommand.run(["export", "--include-secrets", "--output", file, "--database", sqlite])
        #expect(export.status == 0, "\(export)")
        let postgres = try await PostgresServer.createDatabase()
        // With a password in the URL (the test cluster trusts loopback and ignores it), which messages never show.
        let withPassword = postgres.replacingOccurrences(of: "postgresql://postgres@", with: "postgresql://postgres:s3cret@")
        let load = try await NavPrefsCommand.run(["import", file, "--database", withPassword])
        #expect(load.status == 0, "\(load)")
        #expect(load.errors.contains("into postgresql://postgres:***@"), "\(load)")
        #expect(!load.errors.contains("s3cret"), "\(load)")
        // What the new store holds is what the old one did: its export is the first one but for the header.
        let fromPostgres = scratch.path("from-postgres.ndjson")
        #expect(try await NavPrefsCommand.run(["export", "--include-secrets", "--output", fromPostgres, "--database", postgres]).status == 0)
        let (after, newPort) = try await ServiceProcess.start(url: postgres)

        #expect(try await Self.etags(port: newPort, auth: auth, session: sessionPath) == tags, "ETags mean the same on the new store")
        let resumedStaying = try await SSEClient.open(port: newPort, path: "/v1/profiles/mobile/events", headers: auth + [("Last-Event-ID", "5")])
        let resumedLeaving = try await SSEClient.open(port: newPort, path: "/v1/profiles/mobile/events?access_token=\(streamToken)",
                                                      headers: [("Last-Event-ID", "3")])
        #expect(resumedLeaving.head.status == 200, "a stream token made before the move works after it (--include-secrets)")
        let increment = try await TestHTTP.request(port: newPort, "POST", "/v1/profiles/mobile/counter/increment", headers: auth)
        #expect(try increment.json()["eventId"] as? Int == 6)
        let stayingAfter = try await resumedStaying.messages { $0.id == "6" }
        #expect(stayingAfter.compactMap(\.id) == ["6"], "no gap, no duplicate, no reset")
        #expect(!stayingAfter.contains { $0.event == "reset" })
        let leavingAfter = try await resumedLeaving.messages { $0.id == "6" }
        #expect(leavingAfter.compactMap(\.id) == ["4", "5", "6"], "replayed from the imported log, then live")
        #expect(leavingAfter.filter { $0.id != nil }.map(\.event) == ["counter", "counter", "counter"])
        await after.stop()

        // And back to SQLite from PostgreSQL's export: SQLite's export again is the first byte for byte.
        let back = "sqlite:" + scratch.path("back.sqlite")
        #expect(try await NavPrefsCommand.run(["import", fromPostgres, "--database", back]).status == 0)
        let again = scratch.path("again.ndjson")
        #expect(try await NavPrefsCommand.run(["export", "--include-secrets", "--output", again, "--database", back]).status == 0)
        let first = try Data(contentsOf: URL(fileURLWithPath: file))
        let moved = try String(contentsOfFile: fromPostgres, encoding: .utf8)
        #expect(moved.hasPrefix(#"{"record":"header","format":"navprefs-export","version":2,"source":{"navprefs":"#))
        #expect(moved.contains(#""store":"postgresql"},"secrets":true}"#))
        #expect(moved.drop { $0 != "\n" } == String(decoding: first, as: UTF8.self).drop { $0 != "\n" })
        #expect(try Data(contentsOf: URL(fileURLWithPath: again)) == first, "SQLite -> PostgreSQL -> SQLite: byte-identical")
    }

    /// The ETags a client holds: the counter's, the preferences', the font's, the session's.
    static func etags(port: Int, auth: [(String, String)], session: String) async throws -> [String] {
        var tags: [String] = []
        for path in ["/v1/profiles/mobile/counter", "/v1/profiles/ana/preferences", "/v1/profiles/ana/font", session] {
            let response = try await TestHTTP.request(port: port, "GET", path, headers: auth)
            tags.append("\(path) \(response.status) \(response.header("ETag") ?? "-")")
        }
        return tags
    }
}
