import Foundation
import HTTPTestClient
import NavPrefsClient
import Testing

extension ClientSuites {
    /// `navprefs-client`, the library's command-line example, run as a user runs it.
    @Suite("navprefs-client")
    struct CommandLineTests {
        /// Runs `navprefs-client` with `arguments` against `server`; its status and standard output.
        static func run(_ arguments: [String], server: Int, home: String) async throws -> (status: Int32, output: String) {
            var environment = ProcessInfo.processInfo.environment
            environment["NAVPREFS_SERVER"] = "http://127.0.0.1:\(server)"
            environment["HOME"] = home  // the mirror's suite files go there
            environment["XDG_CONFIG_HOME"] = nil
            let prepared = environment
            return try await onOwnThread { try runToEnd(ServerProcess.binary("navprefs-client"), arguments, environment: prepared) }
        }

        /// Starts `navprefs-client watch profile` against `server`, its standard output going to `output`.
        static func watch(_ profile: String, server: Int, home: String, output: String) throws -> ChildProcess {
            let descriptor = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            defer { close(descriptor) }
            var environment = ProcessInfo.processInfo.environment
            environment["NAVPREFS_SERVER"] = "http://127.0.0.1:\(server)"
            environment["HOME"] = home
            return try ChildProcess(ServerProcess.binary("navprefs-client"), ["watch", profile], environment: environment,
                                    output: descriptor, errors: 2)
        }

        @Test("set, then get: the exact value, a getter's coercion; a stale set is refused; get answers offline from the mirror")
        func getAndSet() async throws {
            try await withRig { rig in
                let home = rig.scratch.path("home")
                try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
                let port = rig.proxy.port
                #expect(try await Self.run(["set", "cli", "theme", #""dark""#], server: port, home: home) == (0, #"{"key":"theme","value":"dark","version":1}"# + "\n"))
                #expect(try await Self.run(["set", "cli", "launches", "41"], server: port, home: home).status == 0)
                #expect(try await Self.run(["get", "cli", "theme"], server: port, home: home) == (0, "\"dark\"\n"))
                #expect(try await Self.run(["get", "cli", "launches", "--as", "string"], server: port, home: home) == (0, "\"41\"\n"))
                #expect(try await Self.run(["get", "cli", "missing"], server: port, home: home).status == 1)
                #expect(try await Self.run(["set", "cli", "numIndex", #""one""#], server: port, home: home).status == 1, "422: refused")
                #expect(try await Self.run(["nonsense"], server: port, home: home).status == 2)
                rig.proxy.close()
                let offline = try await Self.run(["get", "cli", "theme"], server: port, home: home)
                #expect(offline == (0, "\"dark\"\n"), "the mirror of the last run answers")
            }
        }

        @Test("watch prints events as they come, and carries on after a server restart without a gap or a repeat")
        func watch() async throws {
            let rig = try await ClientRig()
            let output = rig.scratch.path("watch.out")
            let watcher = try Self.watch("tv", server: rig.proxy.port, home: rig.scratch.path(""), output: output)
            let lines = { ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
            try await Task.sleep(for: .seconds(1))
            _ = try await rig.request("POST", "/v1/profiles/tv/counter/increment")
            #expect(await eventually { lines().count == 1 })
            await rig.server.stop()
            let restarted = try await ServerProcess(database: rig.database, logPath: rig.scratch.path("restarted.log"), extra: ClientRig.serverFlags)
            rig.proxy.route(to: [restarted.port])
            _ = try await TestHTTP.request(port: restarted.port, "PUT", "/v1/profiles/tv/font", json: #"{"sliderValue":2}"#)
            #expect(await eventually { lines().contains { $0.hasPrefix("2 refresh ") } })
            let printed = lines()
            #expect(printed.first?.hasPrefix("1 counter {\"profile\":\"tv\"") == true)
            #expect(printed.filter { !$0.hasPrefix("- shutdown") }.map { $0.prefix(2) } == ["1 ", "2 "], "\(printed)")
            watcher.signal(SIGTERM)
            _ = watcher.wait()
            rig.proxy.close()
            await restarted.stop()
            rig.scratch.remove()
        }
    }
}
