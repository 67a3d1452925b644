import Foundation
import HTTPTestClient
import Testing

/// The command line an operator meets: commands that read never create a database, `check`
/// answers with exit statuses scripts can use, `tokens` works beside the running service, and
/// `import` refuses what would lose or half-write data. Each runs the real binary.
@Suite("Command line", .serialized)
struct CommandLineTests {
    @Test("a command that reads, given a path where no database is, fails naming it (exit 3) and creates nothing")
    func typoCreatesNothing() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let typo = scratch.path("typo/navprefs.sqlite")
        for arguments in [["tokens", "list"], ["tokens", "revoke", "0123456789ab"], ["export"], ["check"],
                          ["backup", "--output", scratch.path("copy.sqlite")]] {
            let run = try await NavPrefsCommand.run(arguments + ["--database", "sqlite:" + typo])
            #expect(run.status == 3, "\(arguments): \(run)")
            #expect(run.errors.contains("no database at sqlite:\(typo)"), "\(arguments): \(run)")
        }
        #expect(!FileManager.default.fileExists(atPath: typo))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("typo")))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("copy.sqlite")))
    }

    @Test("check: 0 ready, 2 a wrong setting, a port in use or protected mode, 3 no database, 4 not servable (also: served now)")
    func checkStatuses() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("check.sqlite")
        let database = "sqlite:" + path
        #expect(try await NavPrefsCommand.run(["check", "--database", database, "--port", "70000"]).status == 2)
        #expect(try await NavPrefsCommand.run(["check", "--database", database]).status == 3)

        let (service, port) = try await ServiceProcess.start(database: path)
        _ = try await TestHTTP.request(port: port, "POST", "/v1/profiles/ana/counter/increment")
        // Beside the service that serves it: a second service would not start, and check says who serves it.
        let served = try await NavPrefsCommand.run(["check", "--database", database, "--port", "0"])
        #expect(served.status == 4, "\(served)")
        #expect(served.output.contains("database: reachable, schema version"), "\(served)")
        #expect(served.errors.contains("\(database) is served now by a running navprefs (PID \(service.process.pid), listening on port \(port)): "
            + "a second service on it would not start"), "\(served)")
        #expect(!served.output.contains("ready"), "\(served)")
        // Another database on the service's port: the port is the obstacle.
        let copy = scratch.path("copy.sqlite")
        #expect(try await NavPrefsCommand.run(["backup", "--output", copy, "--database", database]).status == 0)
        let busy = try await NavPrefsCommand.run(["check", "--database", "sqlite:" + copy, "--port", String(port)])
        #expect(busy.status == 2, "\(busy)")
        #expect(busy.errors.contains("the service could not listen: 127.0.0.1:\(port) is in use: another program, or another navprefs, "
            + "listens there; stop it, or choose another port with --port (or PORT)"), "\(busy)")
        await service.stop()

        let ready = try await NavPrefsCommand.run(["check", "--database", database, "--port", String(port)])
        #expect(ready.status == 0, "\(ready)")
        #expect(ready.output.contains("address: 127.0.0.1:\(port) is free to listen on\n"), "\(ready)")
        #expect(ready.output.hasSuffix("ready: the service would start and serve\n"), "\(ready)")
        let exposed = try await NavPrefsCommand.run(["check", "--database", database, "--host", "0.0.0.0", "--port", "0"])
        #expect(exposed.status == 2, "\(exposed)")
        #expect(exposed.errors.contains("would refuse to listen on 0.0.0.0 with no access token"), "\(exposed)")

        let newer = try shell("sqlite3 '\(path)' 'PRAGMA user_version = 99'")
        #expect(newer.status == 0)
        let refused = try await NavPrefsCommand.run(["check", "--database", database])
        #expect(refused.status == 4, "\(refused)")
        #expect(refused.errors.contains("\(database) has schema version 99"), "\(refused)")

        let foreign = scratch.path("notes.txt")
        try Data(String(repeating: "not a database ", count: 20).utf8).write(to: URL(fileURLWithPath: foreign))
        let other = try await NavPrefsCommand.run(["check", "--database", "sqlite:" + foreign])
        #expect(other.status == 4, "\(other)")
        #expect(other.errors.contains("is not a NavPrefs database"), "\(other)")
    }

    @Test("a second service: on a port in use it says so and names --port, creating no database; on a served SQLite file it names the holder's PID and port; both on standard error, in one plain line")
    func secondService() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("first.sqlite")
        let (service, port) = try await ServiceProcess.start(database: path)
        let fresh = scratch.path("second.sqlite")
        let samePort = try await NavPrefsCommand.run(["--port", String(port), "--database", "sqlite:" + fresh])
        #expect(samePort.status == 1, "\(samePort)")
        #expect(samePort.errors == "navprefs: cannot start: 127.0.0.1:\(port) is in use: another program, or another navprefs, listens there; "
            + "stop it, or choose another port with --port (or PORT)\n", "\(samePort)")
        #expect(!FileManager.default.fileExists(atPath: fresh), "the address is checked before the database is created")
        #expect(samePort.output.contains(#""msg":"cannot start","part":"listen check""#), "the log says it too: \(samePort.output)")

        let sameFile = try await NavPrefsCommand.run(["--port", "0", "--database", "sqlite:" + path])
        #expect(sameFile.status == 1, "\(sameFile)")
        #expect(sameFile.errors == "navprefs: cannot start: storage unavailable: \(path) is in use by another NavPrefs process "
            + "(PID \(service.process.pid), listening on port \(port))\n", "\(sameFile)")
        #expect(try await TestHTTP.request(port: port, "GET", "/v1/profiles/ana/counter").status == 200, "the first one serves on")
        await service.stop()
    }

    @Test("tokens beside the running service: a token made by the command works within the cache delay; a revoked one stops")
    func tokensBesideTheService() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("tokens.sqlite")
        let (service, port) = try await ServiceProcess.start(database: path)
        #expect(try await TestHTTP.request(port: port, "GET", "/v1/profiles/default/counter").status == 200, "open: no token yet")

        let admin = try await NavPrefsCommand.run(["tokens", "create", "--admin", "--label", "cli", "--database", "sqlite:" + path])
        #expect(admin.status == 0, "\(admin)")
        let adminToken = admin.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let profileRun = try await NavPrefsCommand.run(["tokens", "create", "--profile", "ana", "--database", "sqlite:" + path])
        #expect(profileRun.status == 0, "\(profileRun)")
        let profileToken = profileRun.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let made = ContinuousClock.now
        // The new tokens work at once (an unknown id is looked up); authentication turns on within 5 s.
        #expect(try await TestHTTP.request(port: port, "GET", "/v1/profiles/default/counter",
                                           headers: [("Authorization", "Bearer " + adminToken)]).status == 200)
        try await Self.waitUntil(port: port, path: "/v1/profiles/default/counter", headers: [], status: 401)
        #expect(ContinuousClock.now - made < .seconds(7))
        #expect(try await TestHTTP.request(port: port, "POST", "/v1/profiles/ana/counter/increment",
                                           headers: [("Authorization", "Bearer " + profileToken)]).status == 200)

        let list = try await NavPrefsCommand.run(["tokens", "list", "--database", "sqlite:" + path])
        #expect(list.status == 0, "\(list)")
        #expect(list.output.split(separator: "\n").count == 2, "\(list)")
        let profileID = String(profileToken.dropFirst(4).prefix(12))
        let revoke = try await NavPrefsCommand.run(["tokens", "revoke", profileID, "--database", "sqlite:" + path])
        #expect(revoke.status == 0, "\(revoke)")
        try await Self.waitUntil(port: port, path: "/v1/profiles/ana/counter", headers: [("Authorization", "Bearer " + profileToken)], status: 401)
        #expect(try await TestHTTP.request(port: port, "GET", "/v1/profiles/ana/counter",
                                           headers: [("Authorization", "Bearer " + adminToken)]).status == 200)
        let unknown = try await NavPrefsCommand.run(["tokens", "revoke", profileID, "--database", "sqlite:" + path])
        #expect(unknown.status == 1, "\(unknown)")
        await service.stop()
    }

    /// Polls `path` (at most 7 s: the documented 5 s and some slack) until it answers `status`.
    static func waitUntil(port: Int, path: String, headers: [(String, String)], status: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(7)
        var last = 0
        while ContinuousClock.now < deadline {
            last = try await TestHTTP.request(port: port, "GET", path, headers: headers).status
            if last == status { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("GET \(path) answered \(last), not \(status), for 7 s")
    }

    @Test("docs/transfer-format.md's example imports, and exports again byte for byte")
    func documentedExample() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let document = try String(contentsOf: NavPrefsCommand.root.appendingPathComponent("docs/transfer-format.md"), encoding: .utf8)
        let example = try #require(document.firstRange(of: "## Example").map { document[$0.upperBound...] })
        let lines = example.split(separator: "\n").drop { !$0.hasPrefix("{") }.prefix { $0.hasPrefix("{") }
        #expect(lines.count == 9)
        let file = scratch.path("example.ndjson")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let database = "sqlite:" + scratch.path("example.sqlite")
        let load = try await NavPrefsCommand.run(["import", file, "--database", database])
        #expect(load.status == 0, "\(load)")
        let export = try await NavPrefsCommand.run(["export", "--database", database])
        #expect(export.status == 0, "\(export)")
        #expect(export.output == lines.joined(separator: "\n") + "\n")
    }

    @Test("import's error quotes a hostile profile name with its control characters escaped, never raw to the terminal")
    func importEscapesControlCharacters() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let hostile = "x\u{1B}]0;owned\u{07}\u{1B}[31mred"
        let header = #"{"record":"header","format":"navprefs-export","version":1,"source":{"navprefs":"0.5.0","store":"sqlite"},"secrets":false}"#
        let profile = #"{"record":"profile","name":"\#(hostile.unicodeScalars.map { $0.value < 0x20 ? String(format: "\\u%04x", $0.value) : String($0) }.joined())","createdAt":1,"lastEventId":0,"preferencesVersion":0}"#
        let file = scratch.path("hostile.ndjson")
        try (header + "\n" + profile + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let load = try await NavPrefsCommand.run(["import", file, "--database", "sqlite:" + scratch.path("h.sqlite")])
        #expect(load.status != 0, "\(load)")
        #expect(!load.errors.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "raw control characters: \(load.errors.debugDescription)")
        #expect(load.errors.contains("\\u{1B}"), "\(load.errors.debugDescription)")
    }

    @Test("import refuses a store that holds data (5) or that a service serves (4); a file cut short leaves a store navprefs refuses until --replace")
    func importRefusals() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = scratch.path("source.sqlite")
        let (service, port) = try await ServiceProcess.start(database: source)
        for _ in 0..<3 { _ = try await TestHTTP.request(port: port, "POST", "/v1/profiles/ana/counter/increment") }
        let file = scratch.path("export.ndjson")
        let export = try await NavPrefsCommand.run(["export", "--output", file, "--database", "sqlite:" + source])
        #expect(export.status == 0, "\(export)")
        #expect(try await NavPrefsCommand.run(["export", "--output", file, "--database", "sqlite:" + source]).status == 5, "never overwritten")
        let busy = try await NavPrefsCommand.run(["import", file, "--replace", "--database", "sqlite:" + source])
        #expect(busy.status == 4, "\(busy)")
        #expect(busy.errors.contains("in use by a running navprefs"), "\(busy)")
        await service.stop()
        let full = try await NavPrefsCommand.run(["import", file, "--database", "sqlite:" + source])
        #expect(full.status == 5, "\(full)")
        #expect(full.errors.contains("is not empty (1 profile with data"), "\(full)")

        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let cut = scratch.path("cut.ndjson")
        try (lines.dropLast(2).joined(separator: "\n") + "\n").write(toFile: cut, atomically: true, encoding: .utf8)
        let target = scratch.path("target.sqlite")
        let partial = try await NavPrefsCommand.run(["import", cut, "--database", "sqlite:" + target])
        #expect(partial.status == 1, "\(partial)")
        #expect(partial.errors.contains("the file ends without its end record"), "\(partial)")
        #expect(partial.errors.contains("run the import again with --replace"), "\(partial)")
        let refusedService = try ServiceProcess(["--port", "0", "--database", "sqlite:" + target])
        #expect(await refusedService.waitForExit() == 1)
        #expect(refusedService.standardOutput.contains("did not finish"), "\(refusedService.standardOutput)")
        #expect(try await NavPrefsCommand.run(["check", "--database", "sqlite:" + target]).status == 4)
        let again = try await NavPrefsCommand.run(["import", file, "--replace", "--database", "sqlite:" + target])
        #expect(again.status == 0, "\(again)")
        let (restored, restoredPort) = try await ServiceProcess.start(database: target)
        let counter = try await TestHTTP.request(port: restoredPort, "GET", "/v1/profiles/ana/counter")
        #expect(counter.text.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"profile":"ana","value":3,"stringValue":"3","version":3}"#, "\(counter.status) \(counter.text)")
        await restored.stop()
    }
}
