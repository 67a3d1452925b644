import Foundation
import HTTPTestClient
import MicroHTTPServer
import MicroHTTPServerTesting
@testable import NavPrefsHTTPAPI
import NavPrefsCore
import NavPrefsStore
import NavPrefsSQLite
import NavPrefsApp
import Testing

/// How an API test reaches the service. Most suites go through the in-memory transport
/// (`InMemoryHTTPTransport`: the same admission, request phases and handler, no socket); the
/// suites and tests marked ``Trait/overSockets(_:)`` start a listener on an ephemeral port and
/// speak HTTP to it, because what they test lives in the socket: framing, libmicrohttpd's
/// limits, connections, streams over TCP, raw header bytes.
enum AppTransport: Sendable {
    case inMemory
    case sockets

    @TaskLocal static var current = AppTransport.inMemory
}

/// Runs a suite or a test over real sockets (see ``AppTransport``).
struct OverSockets: SuiteTrait, TestTrait, TestScoping {
    /// Why it needs sockets: what it tests lives below the handler.
    let reason: String
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await AppTransport.$current.withValue(.sockets) { try await function() }
    }
}

extension Trait where Self == OverSockets {
    /// Over real sockets, for `reason` (see ``AppTransport``).
    static func overSockets(_ reason: String) -> Self { OverSockets(reason: reason) }
}

/// A running NavPrefs service with its own SQLite file: exactly what `navprefs` runs, built by
/// the same `NavPrefsApp`, reached in memory or on an ephemeral port (``AppTransport``).
struct TestApp: Sendable {
    let app: NavPrefsApp
    let directory: URL
    let logPath: String
    /// The in-memory transport to the API; `nil` over sockets.
    let transport: InMemoryHTTPTransport?
    /// The listener's port; 0 in memory, where there is none (so a socket opened to it fails).
    var port: Int { app.port }

    func connection() throws -> TestConnection {
        guard transport == nil else { throw TestClientError.malformed("no socket in memory: mark the test .overSockets") }
        return try TestConnection(port: port)
    }

    func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: String? = nil) async throws -> TestResponse {
        try await request(method, path, headers: headers, bytes: body.map { Array($0.utf8) } ?? [])
    }

    func request(_ method: String, _ path: String, headers: [(String, String)] = [], json: String) async throws -> TestResponse {
        try await request(method, path, headers: [("Content-Type", "application/json")] + headers, bytes: Array(json.utf8))
    }

    /// Sends what `TestConnection.send` sends (`Host` first unless given, `Content-Length` for a
    /// body), and reads the answer whole, as `TestConnection.readResponse` does.
    func request(_ method: String, _ path: String, headers: [(String, String)] = [], bytes: [UInt8]) async throws -> TestResponse {
        guard let transport else { return try await TestHTTP.request(port: port, method, path, headers: headers, body: bytes) }
        var fields = headers
        if !fields.contains(where: { $0.0.lowercased() == "host" }) { fields.insert(("Host", "127.0.0.1:\(port)"), at: 0) }
        do {
            let response = try await transport.execute(method, path, headers: fields, body: bytes)
            var body = response.body
            if let stream = response.stream {
                while let bytes = try await stream.next() { body += bytes }
            }
            return TestResponse(status: response.status, headers: response.framedHeaders.map { ($0.name, $0.value) }, body: body)
        } catch {
            switch error {
            case .closedWithoutAnswer: throw TestClientError.closed("")
            case .timedOut: throw TestClientError.timeout
            }
        }
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
    func makeToken(profile: String? = nil, label: String = "test") async throws -> (token: String, id: String) {
        guard let made = AccessToken.make(profile: try profile.map(ProfileName.init), label: label, now: 1) else {
            throw TestClientError.malformed("no random bytes for a token")
        }
        try await app.tokens.createToken(made.record)
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
    let inMemory = AppTransport.current == .inMemory
    let app = NavPrefsApp(configuration, logger: logger, listens: !inMemory)
    try await app.start()  // every part, in order, as navprefs starts them
    async let serving: Void = app.run()
    let transport = inMemory ? InMemoryHTTPTransport(handler: app.api, configuration: app.server.configuration) : nil
    if let transport { app.api.reportTransport(streams: transport.streamBudget, answers: nil) }
    let testApp = TestApp(app: app, directory: directory, logPath: logPath, transport: transport)
    do {
        let result = try await body(testApp)
        await app.shutdown()
        await serving
        transport?.close(gracefully: false)
        return result
    } catch {
        await app.shutdown()
        await serving
        transport?.close(gracefully: false)
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
