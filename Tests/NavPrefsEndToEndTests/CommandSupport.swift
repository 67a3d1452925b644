import Foundation
import HTTPTestClient
import Testing

/// What a `navprefs` command did: its exit status and what it wrote on each stream.
struct CommandRun: CustomStringConvertible {
    let status: Int32
    let output: String
    let errors: String

    var description: String { "exit \(status); stdout: \(output.prefix(2000)); stderr: \(errors.prefix(2000))" }
}

enum NavPrefsCommand {
    /// Runs the real binary with `arguments` to its end (at most `timeout`).
    static func run(_ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(120)) async throws -> CommandRun {
        let process = try ServiceProcess(arguments, environment: environment)
        guard let status = await process.waitForExit(timeout: timeout) else {
            process.send(SIGKILL)
            throw ServiceError.didNotListen(output: "navprefs \(arguments.joined(separator: " ")) did not end within \(timeout)")
        }
        return CommandRun(status: status, output: process.standardOutput, errors: process.standardError)
    }

    /// The repository's root, for the files the tests compare the binary with.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

extension ServiceProcess {
    /// Stops the service with SIGTERM and expects a clean exit.
    func stop() async {
        send(SIGTERM)
        #expect(await waitForExit() == 0)
    }
}
