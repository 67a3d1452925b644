import Foundation
import HTTPTestClient
import Synchronization

/// The real `navprefs` executable, started as a child process.
final class ServiceProcess: Sendable {
    /// The executable SwiftPM built next to this test bundle (`NAVPREFS_BINARY` overrides).
    static let binary: URL = {
        if let path = ProcessInfo.processInfo.environment["NAVPREFS_BINARY"] { return URL(fileURLWithPath: path) }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let besideBundle = bundle.appendingPathComponent("navprefs")
        if FileManager.default.isExecutableFile(atPath: besideBundle.path) { return besideBundle }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/navprefs")
    }()

    let process: ChildProcess
    /// What the child wrote, filled by two reader threads (which hold this, not the service).
    private final class Captured: Sendable {
        let output = Mutex<String>("")
        let errors = Mutex<String>("")
        /// How many of the two reader threads have reached the end of their pipe.
        let drained = Atomic<Int>(0)
    }
    private let captured = Captured()

    /// Starts `navprefs` with `arguments`; does not wait for it to listen.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        var merged = ProcessInfo.processInfo.environment
        for key in ["HOST", "PORT", "DATABASE_URL", "SQLITE_SYNCHRONOUS", "LOG_LEVEL", "LOG_FORMAT"] { merged[key] = nil }
        merged.merge(environment) { $1 }
        let stdout = try closeOnExecPipe(), stderr = try closeOnExecPipe()
        do {
            process = try ChildProcess(Self.binary.path, arguments, environment: merged, output: stdout.write, errors: stderr.write)
        } catch {
            for descriptor in [stdout.read, stdout.write, stderr.read, stderr.write] { close(descriptor) }
            throw error
        }
        close(stdout.write)
        close(stderr.write)
        // One thread per pipe reads until the child's end closes it.
        for (descriptor, isError) in [(stdout.read, false), (stderr.read, true)] {
            Thread { [captured] in
                readToEnd(descriptor) { data in
                    let text = String(decoding: data, as: UTF8.self)
                    if isError { captured.errors.withLock { $0 += text } } else { captured.output.withLock { $0 += text } }
                }
                captured.drained.add(1, ordering: .releasing)
            }.start()
        }
    }

    /// Starts a service on a free port and waits until it listens.
    static func start(database: String, extra: [String] = [], environment: [String: String] = [:]) async throws -> (ServiceProcess, Int) {
        try await start(url: "sqlite:" + database, extra: extra, environment: environment)
    }

    /// Starts a service on the database `url` (`sqlite:PATH` or `postgresql://...`) and waits until it listens.
    static func start(url: String, extra: [String] = [], environment: [String: String] = [:]) async throws -> (ServiceProcess, Int) {
        let service = try ServiceProcess(["--port", "0", "--database", url] + extra, environment: environment)
        let port = try await service.listeningPort()
        return (service, port)
    }

    var standardOutput: String { captured.output.withLock { $0 } }
    var standardError: String { captured.errors.withLock { $0 } }

    /// The port from the `listening` log line (within ten seconds).
    func listeningPort() async throws -> Int {
        for _ in 0..<1000 {
            if let line = standardOutput.split(separator: "\n").first(where: {
                $0.contains("\"msg\":\"listening\"") || $0.contains(" INFO listening ")
            }),
               let range = line.range(of: #"(127\.0\.0\.1|0\.0\.0\.0):(\d+)"#, options: .regularExpression),
               let port = Int(line[range].split(separator: ":").last ?? "") {
                return port
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ServiceError.didNotListen(output: standardOutput + standardError)
    }

    /// Waits (at most ten seconds) until the process wrote `text` on standard output.
    func waitForOutput(containing text: String) async throws {
        for _ in 0..<1000 {
            if standardOutput.contains(text) { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ServiceError.didNotListen(output: "no '\(text)' in: " + standardOutput + standardError)
    }

    /// Waits for the process to exit; returns its status, or `nil` after `timeout`.
    func waitForExit(timeout: Duration = .seconds(15)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        // Everything it wrote: both readers reach the end of their pipes once it has exited.
        let readDeadline = ContinuousClock.now + .seconds(5)
        while captured.drained.load(ordering: .acquiring) < 2 && ContinuousClock.now < readDeadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return process.exitStatus
    }

    func send(_ signal: Int32) { process.signal(signal) }

    deinit {
        process.signal(SIGKILL)
    }
}

enum ServiceError: Error, CustomStringConvertible {
    case didNotListen(output: String)
    var description: String {
        switch self {
        case .didNotListen(let output): "navprefs did not start listening: \(output.suffix(2000))"
        }
    }
}

/// A temporary directory for one test's database files.
struct Scratch {
    let directory: URL
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("navprefs-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Runs a command line through /bin/sh and returns its exit status and standard output.
func shell(_ command: String, environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
    try runToEnd("/bin/sh", ["-c", command], environment: ProcessInfo.processInfo.environment.merging(environment) { _, added in added })
}
