import Foundation
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

    let process: Process
    private let output = Mutex<String>("")
    private let errors = Mutex<String>("")
    private let pipes: (stdout: FileHandle, stderr: FileHandle)

    /// Starts `navprefs` with `arguments`; does not wait for it to listen.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for key in ["HOST", "PORT", "DATABASE_URL", "SQLITE_SYNCHRONOUS", "LOG_LEVEL", "LOG_FORMAT"] { merged[key] = nil }
        merged.merge(environment) { $1 }
        process.environment = merged
        let stdout = Pipe(), stderr = Pipe()
        pipes = (stdout.fileHandleForReading, stderr.fileHandleForReading)
        process.standardOutput = stdout
        process.standardError = stderr
        stdout.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.output.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        stderr.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.errors.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
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

    var standardOutput: String { output.withLock { $0 } }
    var standardError: String { errors.withLock { $0 } }

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

    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to exit; returns its status, or `nil` after `timeout`.
    func waitForExit(timeout: Duration = .seconds(15)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        // Collect what the handlers have not delivered yet.
        pipes.stdout.readabilityHandler = nil
        pipes.stderr.readabilityHandler = nil
        let restOut = pipes.stdout.readDataToEndOfFile(), restErr = pipes.stderr.readDataToEndOfFile()
        output.withLock { $0 += String(decoding: restOut, as: UTF8.self) }
        errors.withLock { $0 += String(decoding: restErr, as: UTF8.self) }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
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
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
