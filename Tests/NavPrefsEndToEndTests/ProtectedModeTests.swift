import Foundation
import HTTPTestClient
import Testing

/// The binary's safe default and its token commands (issue 8): open only on loopback; beyond it,
/// a token first or an explicit --allow-unauthenticated.
@Suite("Protected mode and `navprefs tokens`")
struct ProtectedModeTests {
    @Test("on 0.0.0.0 with no token the service refuses to start, exit 2, and says how to go on")
    func refusesWithoutToken() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let service = try ServiceProcess(["--host", "0.0.0.0", "--port", "0", "--database", "sqlite:" + scratch.path("p.sqlite")])
        #expect(await service.waitForExit() == 2)
        #expect(service.standardError.contains("navprefs tokens create --admin"), "stderr: \(service.standardError)")
        #expect(service.standardError.contains("--allow-unauthenticated"))
        #expect(!service.standardOutput.contains("\"msg\":\"listening\""))
    }

    @Test("--allow-unauthenticated serves 0.0.0.0 openly, as asked")
    func allowUnauthenticated() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (service, port) = try await ServiceProcess.start(database: scratch.path("p.sqlite"),
                                                             // The switch takes no value: the flag after it is read as a flag.
                                                             extra: ["--allow-unauthenticated", "--host", "0.0.0.0"])
        #expect(try await TestHTTP.request(port: port, "POST", "/v1/profiles/x/counter/increment").status == 200)
        service.send(SIGTERM)
        #expect(await service.waitForExit() == 0)
    }

    @Test("tokens create prints the token once; the service on 0.0.0.0 then needs it; list and revoke work on the file")
    func tokenCommands() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = "sqlite:" + scratch.path("p.sqlite")
        let created = try await onOwnThread { try shell("'\(ServiceProcess.binary.path)' tokens create --admin --label ops --database '\(database)'") }
        #expect(created.status == 0)
        let token = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("npt_") && token.count == 81, "stdout: \(created.output)")
        let profileToken = try await onOwnThread {
            try shell("'\(ServiceProcess.binary.path)' tokens create --profile ana --database '\(database)'")
        }.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let listed = try await onOwnThread { try shell("'\(ServiceProcess.binary.path)' tokens list --database '\(database)'") }
        let lines = listed.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("\tadmin\t") == true && lines.first?.hasSuffix("\tops") == true)
        #expect(lines.last?.contains("\tprofile:ana\t") == true)
        #expect(!listed.output.contains(token.suffix(64)), "the list shows no secret")

        let (service, port) = try await ServiceProcess.start(database: scratch.path("p.sqlite"), extra: ["--host", "0.0.0.0"])
        #expect(try await TestHTTP.request(port: port, "GET", "/v1/profiles/ana/counter").status == 401)
        #expect(try await TestHTTP.request(port: port, "POST", "/v1/profiles/ana/counter/increment",
                                           headers: [("Authorization", "Bearer " + profileToken)]).status == 200)
        #expect(try await TestHTTP.request(port: port, "GET", "/metrics", headers: [("Authorization", "Bearer " + token)]).status == 200)
        // While the service serves the SQLite file, the command reads it beside the service.
        let beside = try await onOwnThread { try shell("'\(ServiceProcess.binary.path)' tokens list --database '\(database)' 2>&1") }
        #expect(beside.status == 0 && beside.output.split(separator: "\n").count == 2, "\(beside.output)")
        service.send(SIGTERM)
        #expect(await service.waitForExit() == 0)
        #expect(!service.standardOutput.contains(profileToken.suffix(40)) && !service.standardOutput.contains(token.suffix(40)))

        let id = String(profileToken.dropFirst(4).prefix(12))
        #expect(try await onOwnThread { try shell("'\(ServiceProcess.binary.path)' tokens revoke \(id) --database '\(database)'") }.status == 0)
        let after = try await onOwnThread { try shell("'\(ServiceProcess.binary.path)' tokens list --database '\(database)'") }
        #expect(after.output.split(separator: "\n").count == 1)
        #expect(try await onOwnThread { try shell("'\(ServiceProcess.binary.path)' tokens revoke \(id) --database '\(database)' 2>/dev/null") }.status == 1)
        #expect(try await onOwnThread { try shell("'\(ServiceProcess.binary.path)' tokens create --database '\(database)' 2>/dev/null") }.status == 2,
                "neither --profile nor --admin")
    }
}
