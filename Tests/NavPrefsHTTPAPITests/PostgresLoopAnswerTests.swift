import Foundation
import HTTPTestClient
import MicroHTTPServer
import NavPrefsApp
import Testing

/// A PostgreSQL store reads and writes on its pool's threads; what it hands back is rendered,
/// finished (response steps, metrics, the log line) and answered on the event loop
/// (`LoopRenderer`). Counted by the server itself: an answer handed to the transport on another
/// thread raises ``HTTPServer/answersMadeOffTheLoop``. Needs `NAVPREFS_TEST_POSTGRES_URL`
/// (scripts/lib/postgres.sh start).
@Suite("PostgreSQL answers rendered on the event loop",
       .overSockets("counts the answers made off the event loop's thread, which only the socket server has"),
       .enabled(if: PostgresDatabase.baseURL != nil, "set NAVPREFS_TEST_POSTGRES_URL (scripts/lib/postgres.sh start)"))
struct PostgresLoopAnswerTests {
    @Test("writes, keyed writes, refusals and reads of a pool thread are answered on the loop")
    func poolThreadsHandBack() async throws {
        let database = try PostgresDatabase()
        defer { database.drop() }
        try await withApp({ $0.database = .postgres(url: database.url) }) { app in
            #expect(try await app.request("POST", "/v1/profiles/pg/counter/increment").status == 200)
            let before = app.app.server.answersMadeOffTheLoop
            #expect(try await app.request("POST", "/v1/profiles/pg/counter/increment").int("value") == 2)
            #expect(try await app.request("PUT", "/v1/profiles/pg/preferences/theme", json: #"{"value": "dark"}"#).status == 201)
            let keyed = [("Idempotency-Key", "loop-1")]
            let first = try await app.request("POST", "/v1/profiles/pg/counter/increment", headers: keyed)
            let replay = try await app.request("POST", "/v1/profiles/pg/counter/increment", headers: keyed)
            #expect(first.status == 200 && replay.header("Idempotent-Replayed") == "true" && replay.body == first.body)
            let refused = try await app.request("POST", "/v1/profiles/pg/counter/increment", headers: [("If-Match", "\"999\"")])
            #expect(refused.status == 412)
            for path in ["counter", "font", "preferences", "preferences/theme", "state"] {
                #expect(try await app.request("GET", "/v1/profiles/pg/\(path)").status == 200, "GET \(path)")
            }
            #expect(app.app.server.answersMadeOffTheLoop == before, "an answer was handed to the transport off the loop")
        }
    }
}

/// A fresh database on the test server, made and dropped with `psql`.
struct PostgresDatabase {
    static let baseURL: String? = {
        let url = ProcessInfo.processInfo.environment["NAVPREFS_TEST_POSTGRES_URL"] ?? ""
        return url.isEmpty ? nil : url
    }()

    let name = "navprefs_api_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let url: String
    private let base: String

    init() throws {
        base = try #require(Self.baseURL)
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        url = try #require(components.string)
        try #require(Self.psql(base, "CREATE DATABASE \(name)") == 0, "psql could not create \(name)")
    }

    func drop() { _ = Self.psql(base, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }

    private static func psql(_ url: String, _ command: String) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", url, "-v", "ON_ERROR_STOP=1", "-qc", command]
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
