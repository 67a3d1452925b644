import Foundation
import HTTPTestClient
import NavPrefsHTTPAPI
import Testing

/// One version everywhere: VERSION is the source; the binary (BuildInfo.version, `--version`,
/// `/metrics`), openapi.yaml's info.version and the container image's label (the Dockerfile's
/// default VERSION argument) must say the same. To release another version, change all of them:
/// this test names the one that differs.
@Suite("One version")
struct VersionTests {
    static func file(_ name: String) throws -> String {
        try String(contentsOf: NavPrefsCommand.root.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("VERSION, navprefs --version, /metrics, openapi.yaml and the Dockerfile's label agree")
    func oneVersion() async throws {
        let version = try Self.file("VERSION").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?/) != nil, "VERSION holds '\(version)'")
        #expect(BuildInfo.version == version, "Sources/NavPrefsHTTPAPI/BuildInfo.swift")
        let run = try await NavPrefsCommand.run(["--version"])
        #expect(run.status == 0)
        #expect(run.output == "navprefs \(version)\n")
        let openapi = try Self.file("openapi.yaml").firstMatch(of: /\ninfo:\n(?:  .*\n)*?  version: (\S+)\n/)?.1
        #expect(openapi.map(String.init) == version, "openapi.yaml's info.version")
        let dockerfile = try Self.file("Dockerfile").firstMatch(of: /\nARG VERSION=(\S+)\n/)?.1
        #expect(dockerfile.map(String.init) == version, "the Dockerfile's ARG VERSION (the image's org.opencontainers.image.version)")

        let scratch = try Scratch()
        defer { scratch.remove() }
        let (service, port) = try await ServiceProcess.start(database: scratch.path("version.sqlite"))
        let metrics = try await TestHTTP.request(port: port, "GET", "/metrics").text
        #expect(metrics.contains("navprefs_build_info{version=\"\(version)\""), "/metrics")
        await service.stop()
    }
}
