import Foundation
import HTTPTestClient
import NavPrefsClient
import Testing

extension ClientSuites {
    /// One depth for values everywhere (issue 32, item 1): a value 64 levels deep, the limit,
    /// set through the API reads back whole through every path that carries it (single read,
    /// the whole set, /state, a JSON page of events, the Swift client's mirror, `navprefs-client
    /// get` and `watch`, `navprefs export` and `import`); 65 levels are 422 `nested-too-deeply`
    /// through every path that writes one. The console's part is scripts/console-browser-check.py.
    @Suite("One depth limit, through every tool")
    struct DepthTableTests {
        /// A value `depth` levels deep, arrays and objects in turn, a string at the bottom.
        static func nested(_ depth: Int) -> JSON {
            var value: JSON = "deep"
            for level in 0..<depth { value = level % 2 == 0 ? .array([value]) : .object([.init("k\(level)", value)]) }
            return value
        }

        @Test("64 levels read back whole through the API, the client, navprefs-client, export and import; 65 are 422 everywhere")
        func depthTable() async throws {
            try await withRig { rig in
                let limit = 64
                let deep = Self.nested(limit), tooDeep = Self.nested(limit + 1)
                let text = deep.jsonText
                // The API: 64 stored, 65 refused on every write that takes a value.
                #expect(try await rig.request("PUT", "/v1/profiles/deep/preferences/v", json: #"{"value":\#(text)}"#).status == 201)
                for (method, path, body) in [("PUT", "/preferences/w", #"{"value":\#(tooDeep.jsonText)}"#),
                                             ("PATCH", "/preferences", #"{"w":\#(tooDeep.jsonText)}"#),
                                             ("PUT", "/defaults", #"{"w":\#(tooDeep.jsonText)}"#),
                                             ("PATCH", "/defaults", #"{"w":\#(tooDeep.jsonText)}"#)] {
                    let refused = try await rig.request(method, "/v1/profiles/deep" + path, json: body)
                    #expect(refused.status == 422 && refused.text.contains("nested-too-deeply"), "\(method) \(path): \(refused.status)")
                }
                var rows: [(String, Bool)] = []
                func read(_ path: String, accept: String? = nil) async throws -> String {
                    try await rig.request("GET", path, headers: accept.map { [("Accept", $0)] } ?? []).text
                }
                rows.append(("GET .../preferences/v", try await read("/v1/profiles/deep/preferences/v").contains(#""value":\#(text)"#)))
                rows.append(("GET .../preferences", try await read("/v1/profiles/deep/preferences").contains(#""v":\#(text)"#)))
                rows.append(("GET .../state", try await read("/v1/profiles/deep/state").contains(#""value":\#(text)"#)))
                rows.append(("events as a JSON page", try await read("/v1/profiles/deep/events?after=0", accept: "application/json")
                    .contains(#""value":\#(text)"#)))

                // The Swift client: its mirror holds it (its parser allows 512), and a write of 65 is refused with the server's 422.
                let profile = try rig.profile("deep")
                try await profile.reload()
                rows.append(("the Swift client's mirror", profile.preferences.value(forKey: "v") == deep))
                do throws(NavPrefsError) {
                    _ = try await profile.preferences.onServer.set(tooDeep, forKey: "w")
                    rows.append(("the Swift client's set of 65 refused", false))
                } catch {
                    guard case .refused(let problem) = error else { throw error }
                    rows.append(("the Swift client's set of 65 refused", problem.status == 422 && problem.type.hasSuffix("nested-too-deeply")))
                }

                // navprefs-client get and watch print it whole; its set of 65 fails with the 422.
                let home = rig.scratch.path("home")
                try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
                let got = try await CommandLineTests.run(["get", "deep", "v"], server: rig.proxy.port, home: home)
                rows.append(("navprefs-client get", got == (0, text + "\n")))
                let set = try await CommandLineTests.run(["set", "deep", "w", tooDeep.jsonText], server: rig.proxy.port, home: home)
                rows.append(("navprefs-client set of 65 fails", set.status == 1))
                let output = rig.scratch.path("watch.out")
                let watcher = try CommandLineTests.watch("deep", server: rig.proxy.port, home: rig.scratch.path("watcher"), output: output)
                try await Task.sleep(for: .seconds(1))
                #expect(try await rig.request("PUT", "/v1/profiles/deep/preferences/x", json: #"{"value":\#(text)}"#).status == 201)
                let watched = await eventually {
                    ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains(#""key":"x","value":\#(text)"#)
                }
                rows.append(("navprefs-client watch", watched))
                watcher.signal(SIGTERM)
                _ = watcher.wait()

                // navprefs export, then import into a new file, then served: the same value.
                let exported = rig.scratch.path("deep.ndjson"), imported = "sqlite:" + rig.scratch.path("imported.sqlite")
                let navprefs = ServerProcess.binary("navprefs")
                let environmentForCommands = ProcessInfo.processInfo.environment
                let export = try await onOwnThread {
                    try runToEnd(navprefs, ["export", "--output", exported, "--database", rig.database], environment: environmentForCommands)
                }
                rows.append(("navprefs export", export.status == 0
                    && ((try? String(contentsOfFile: exported, encoding: .utf8)) ?? "").contains(#""value":\#(text)"#)))
                let importRun = try await onOwnThread { try runToEnd(navprefs, ["import", exported, "--database", imported], environment: environmentForCommands) }
                let served = try await ServerProcess(database: imported, logPath: rig.scratch.path("imported.log"))
                let afterImport = try await TestHTTP.request(port: served.port, "GET", "/v1/profiles/deep/preferences/v").text
                await served.stop()
                rows.append(("navprefs import, then served", importRun.status == 0 && afterImport.contains(#""value":\#(text)"#)))

                for (path, carried) in rows { #expect(carried, "\(path) does not carry 64 levels whole (or does not refuse 65)") }
                print("depth table: " + rows.map { "\($0.0): \($0.1 ? "ok" : "FAILS")" }.joined(separator: "; "))
            }
        }
    }
}
