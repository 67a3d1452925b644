import Foundation
import HTTPTestClient
import Testing

/// The real `navprefs` binary on an ephemeral port, its log in a file (the listening line gives
/// the port; request lines count requests per route).
final class ServerProcess: Sendable {
    /// The executables SwiftPM built beside this test bundle.
    static func binary(_ name: String) -> String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = bundle.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/\(name)").path
    }

    let process: ChildProcess
    let logPath: String
    let port: Int

    /// Starts `navprefs` on `database` (`sqlite:PATH` or a PostgreSQL URL) and waits until it listens.
    init(database: String, logPath: String, extra: [String] = []) async throws {
        let descriptor = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ChildProcessError.spawn(errno) }
        var environment = ProcessInfo.processInfo.environment
        for key in ["HOST", "PORT", "DATABASE_URL", "LOG_FORMAT", "LOG_LEVEL"] { environment[key] = nil }
        let process = try ChildProcess(Self.binary("navprefs"), ["--port", "0", "--database", database, "--sqlite-synchronous", "normal",
                                                                 "--readiness-drain", "0"] + extra,
                                       environment: environment, output: descriptor, errors: descriptor)
        close(descriptor)
        self.process = process
        self.logPath = logPath
        var found: Int?
        for _ in 0..<1000 {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            if let match = log.firstMatch(of: /"msg":"listening".*"url":"http:\/\/127\.0\.0\.1:([0-9]+)"/) {
                found = Int(match.1)
                break
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        guard let found else {
            process.signal(SIGKILL)
            throw TestClientError.malformed("navprefs did not listen: \((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")
        }
        port = found
    }

    /// Ends it with SIGTERM (streams get `shutdown`) and waits for it to exit.
    func stop() async {
        process.signal(SIGTERM)
        _ = try? await onOwnThread { [process] in process.wait() }
    }

    /// How many requests of `method` on `route` (a template) it has logged so far.
    func requests(_ method: String, _ route: String) async throws -> Int {
        try await Task.sleep(for: .milliseconds(250))  // request lines are flushed every 100 ms
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter { $0.contains("\"method\":\"\(method)\"") && $0.contains("\"route\":\"\(route)\"") }.count
    }

    deinit { process.signal(SIGKILL) }
}

/// A temporary directory for one test's files.
struct Scratch: Sendable {
    let directory: URL
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("navprefs-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Waits (at most `timeout`) until `condition` holds; whether it did.
@discardableResult
func eventually(within timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
