import Foundation
import HTTPTestClient
@testable import NavPrefsHTTPAPI
import NavPrefsCore
import NavPrefsStore
import NavPrefsSQLite
import NavPrefsApp

/// A running NavPrefs service on an ephemeral port with its own SQLite file: exactly what
/// `navprefs` runs, built by the same `NavPrefsApp`.
struct TestApp: Sendable {
    let app: NavPrefsApp
    let directory: URL
    let logPath: String
    var port: Int { app.port }

    func connection() throws -> TestConnection { try TestConnection(port: port) }

    func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: String? = nil) async throws -> TestResponse {
        try await TestHTTP.request(port: port, method, path, headers: headers, body: body.map { Array($0.utf8) } ?? [])
    }

    func request(_ method: String, _ path: String, headers: [(String, String)] = [], json: String) async throws -> TestResponse {
        try await TestHTTP.request(port: port, method, path, headers: headers, json: json)
    }

    /// Log lines written so far.
    func logLines() -> [String] {
        app.logger.flush()
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }
}

extension TestApp {
    /// Makes a token on the store, as `navprefs tokens create` does (the API makes none while
    /// none exists), and has the service look at once, as its refresh every few seconds would.
    func makeToken(profile: String? = nil) async throws -> (token: String, id: String) {
        guard let made = AccessToken.make(profile: try profile.map(ProfileName.init), label: "test", now: 1) else {
            throw TestClientError.malformed("no random bytes for a token")
        }
        try await app.store.createToken(made.record)
        await app.api.startAuthentication()
        return (made.token, made.record.id)
    }
}

/// Starts a service for `body` and stops it afterwards, also when `body` throws.
func withApp<T>(
    _ configure: (inout Configuration) -> Void = { _ in },
    _ body: (TestApp) async throws -> T
) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navprefs-api-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var configuration = Configuration()
    configuration.port = 0
    configuration.database = .sqlite(path: directory.appendingPathComponent("navprefs.sqlite").path)
    configuration.sqliteSynchronous = .normal
    configuration.shutdownGraceSeconds = 2
    configuration.sseMaxSubscribersPerIP = 100
    configuration.readinessDrainSeconds = 0
    configure(&configuration)
    let logPath = directory.appendingPathComponent("log.jsonl").path
    let descriptor = open(logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    // The sink closes the descriptor when it goes away, after its flusher has stopped: a
    // descriptor closed here could by then belong to another test.
    let logger = Logger(level: .info, format: .json, sink: LogSink(descriptor: descriptor, closesDescriptor: true))
    let app = NavPrefsApp(configuration, logger: logger)
    try await app.start()  // every part, in order, as navprefs starts them
    async let serving: Void = app.run()
    let testApp = TestApp(app: app, directory: directory, logPath: logPath)
    do {
        let result = try await body(testApp)
        await app.shutdown()
        await serving
        return result
    } catch {
        await app.shutdown()
        await serving
        throw error
    }
}

extension TestResponse {
    /// The `type` of a problem+json body, after checking the RFC 9457 members are there.
    func problemType() throws -> String {
        guard header("Content-Type") == "application/problem+json" else {
            throw TestClientError.malformed("not problem+json (\(status), \(header("Content-Type") ?? "-")): \(text)")
        }
        let object = try json()
        guard let type = object["type"] as? String, object["title"] is String, object["status"] as? Int == status,
              object["detail"] is String else {
            throw TestClientError.malformed("incomplete problem: \(text)")
        }
        return type
    }

    func int(_ key: String) throws -> Int64? {
        (try json()[key] as? NSNumber)?.int64Value
    }
}

func problem(_ slug: String) -> String { "urn:navprefs:problem:" + slug }
