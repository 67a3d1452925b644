import Foundation
import HTTPTestClient
import Testing

/// Who changed what with the real binary (issue 36): two devices, each with a token of its own,
/// change one key over TCP; its history and the event log name both; a device name the service
/// cannot record is refused as problem+json; another profile's token reads none of it; and
/// `navprefs export` → `navprefs import` (the file as written, version 2, and the same file as
/// version 1 wrote it) serves the same history from the new store.
@Suite("Authors with the real binary: history, events, refusals, export and import")
struct AuthorsEndToEndTests {
    /// A token made by `navprefs tokens create` and its id, as `navprefs tokens list` shows it.
    struct Token {
        let secret: String
        let id: String
        var bearer: (String, String) { ("Authorization", "Bearer " + secret) }
    }

    static func token(_ scope: [String], label: String, database: String) async throws -> Token {
        let created = try await NavPrefsCommand.run(["tokens", "create"] + scope + ["--label", label, "--database", database])
        #expect(created.status == 0, "\(created)")
        let listed = try await NavPrefsCommand.run(["tokens", "list", "--database", database])
        let line = try #require(listed.output.split(separator: "\n").first { $0.hasSuffix("\t" + label) }, "\(listed)")
        return Token(secret: created.output.trimmingCharacters(in: .whitespacesAndNewlines), id: String(line.prefix { $0 != "\t" }))
    }

    /// The `author` of each change of a history page.
    static func authors(_ page: [String: Any]) -> [[String: String]] {
        ((page["changes"] as? [[String: Any]]) ?? []).map { ($0["author"] as? [String: String]) ?? [:] }
    }

    @Test("two devices change one key: history and events name both, newest first; bad names and foreign tokens are refused; export and import (formats 2 and 1) keep the authors")
    func twoDevicesThroughExportAndImport() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = "sqlite:" + scratch.path("source.sqlite")
        let phone = try await Self.token(["--profile", "ana"], label: "ana's phone", database: source)
        let tablet = try await Self.token(["--profile", "ana"], label: "kitchen tablet", database: source)
        let bob = try await Self.token(["--profile", "bob"], label: "bob", database: source)
        let admin = try await Self.token(["--admin"], label: "ops", database: source)
        let theme = "/v1/profiles/ana/preferences/theme"
        let phoneAuthor = ["token": phone.id, "label": "ana's phone", "device": "Ana’s iPhone"]
        let tabletAuthor = ["token": tablet.id, "label": "kitchen tablet", "device": "kitchen-ipad"]

        let (service, port) = try await ServiceProcess.start(database: scratch.path("source.sqlite"))
        let first = try await TestHTTP.request(port: port, "PUT", theme, headers: [phone.bearer, ("NavPrefs-Device", "Ana%E2%80%99s iPhone")],
                                               json: #"{"value":"dark"}"#)
        #expect(first.status == 201, "\(first.text)")
        let second = try await TestHTTP.request(port: port, "PUT", theme, headers: [tablet.bearer, ("NavPrefs-Device", "kitchen-ipad")],
                                                json: #"{"value":"light"}"#)
        #expect(second.status == 200, "\(second.text)")

        let history = try await TestHTTP.request(port: port, "GET", theme + "/history", headers: [phone.bearer])
        #expect(history.status == 200, "\(history.text)")
        let page = try history.json()
        #expect((page["changes"] as? [[String: Any]])?.map { $0["value"] as? String } == ["light", "dark"])
        #expect((page["changes"] as? [[String: Any]])?.map { $0["eventId"] as? Int } == [2, 1])
        #expect(Self.authors(page) == [tabletAuthor, phoneAuthor])
        #expect(!history.text.contains(phone.secret) && !history.text.contains(tablet.secret), "no secret in an author")

        let events = try await TestHTTP.request(port: port, "GET", "/v1/profiles/ana/events", headers: [admin.bearer, ("Accept", "application/json")])
        let logged = try #require(try events.json()["events"] as? [[String: Any]], "\(events.text)")
        #expect(logged.map { ($0["data"] as? [String: Any])?["author"] as? [String: String] } == [phoneAuthor, tabletAuthor])
        let byDevice = try await TestHTTP.request(port: port, "GET", "/v1/profiles/ana/events?by_device=kitchen-ipad",
                                                  headers: [admin.bearer, ("Accept", "application/json")])
        #expect((try byDevice.json()["events"] as? [[String: Any]])?.map { $0["id"] as? Int } == [2], "\(byDevice.text)")

        // Names the service cannot record, sent over the socket: refused before the body, nothing
        // written. A raw control byte other than a tab breaks the header section itself (RFC 9112),
        // which the HTTP layer refuses before any route; the rest reach the route's own check.
        let refusals = [("kitchen\u{01}ipad", "bad-request-framing"), ("del\u{7F}", "bad-request-framing"),
                        ("kitchen\tipad", "invalid-device-name"), ("bell%07", "invalid-device-name"),
                        ("line%0Abreak", "invalid-device-name"), (String(repeating: "x", count: 65), "invalid-device-name")]
        for (name, problem) in refusals {
            let refused = try await TestHTTP.request(port: port, "PUT", theme, headers: [tablet.bearer, ("NavPrefs-Device", name)],
                                                     json: #"{"value":"sepia"}"#)
            #expect(refused.status == 400, "\(name.debugDescription): \(refused.status) \(refused.text)")
            #expect(refused.header("Content-Type") == "application/problem+json", "\(name.debugDescription)")
            #expect((try? refused.json()["type"] as? String) == "urn:navprefs:problem:" + problem, "\(name.debugDescription): \(refused.text)")
        }
        // Another profile's token learns nothing of ana's history, not even that it exists.
        for path in [theme + "/history", "/v1/profiles/ana/counter/history", "/v1/profiles/ana/font/history"] {
            let foreign = try await TestHTTP.request(port: port, "GET", path, headers: [bob.bearer])
            #expect(foreign.status == 404 && foreign.header("Content-Type") == "application/problem+json", "\(path): \(foreign.text)")
            #expect(!foreign.text.contains("kitchen") && !foreign.text.contains("light"), "\(path): \(foreign.text)")
        }
        let unchanged = try await TestHTTP.request(port: port, "GET", theme + "/history", headers: [admin.bearer])
        #expect(unchanged.text == history.text, "the refused writes changed nothing")
        await service.stop()

        // The file carries each change's author: in its event's data, and beside the value it left.
        let file = scratch.path("export.ndjson")
        let export = try await NavPrefsCommand.run(["export", "--output", file, "--database", source])
        #expect(export.status == 0, "\(export)")
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first?.contains(#""format":"navprefs-export","version":2,"#) == true, "\(lines.first ?? "")")
        let exported = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(exported.count == lines.count)
        let exportedEvents = exported.filter { $0["record"] as? String == "event" && $0["profile"] as? String == "ana" }
        #expect(exportedEvents.map { ($0["data"] as? [String: Any])?["author"] as? [String: String] } == [phoneAuthor, tabletAuthor])
        let value = try #require(exported.first { $0["record"] as? String == "preference" && $0["key"] as? String == "theme" })
        #expect((value["lastChange"] as? [String: Any])?["author"] as? [String: String] == tabletAuthor)

        // Version 2, as written: the new store answers the same history, byte for byte, and the same last change.
        let (restoredHistory, read) = try await Self.imported(file, into: scratch.path("target.sqlite"), key: theme, token: phone)
        #expect(restoredHistory == history.text)
        #expect((read["lastChange"] as? [String: Any])?["author"] as? [String: String] == tabletAuthor)

        // Version 1 (no lastChange members): it still imports; the history, read from the events, keeps both authors.
        let older = scratch.path("version1.ndjson")
        let versionOne = lines.map { line in
            line.replacing(#""version":2,"source""#, with: #""version":1,"source""#)
                .replacing(/,"lastChange":\{"at":\d+,"author":(null|\{[^}]*\})\}/, with: "")
        }
        #expect(!versionOne.contains { $0.contains("lastChange") } && versionOne.first?.contains(#""version":1,"#) == true)
        try (versionOne.joined(separator: "\n") + "\n").write(toFile: older, atomically: true, encoding: .utf8)
        let (oldHistory, oldRead) = try await Self.imported(older, into: scratch.path("from-version1.sqlite"), key: theme, token: phone)
        #expect(oldHistory == history.text)
        #expect(oldRead["value"] as? String == "light")
        #expect(oldRead["lastChange"] is NSNull, "version 1 did not carry it: not known")
    }

    /// `navprefs import` of `file` into a new SQLite store at `path`, then the service on it:
    /// `key`'s history (its text) and its read, with `token`.
    static func imported(_ file: String, into path: String, key: String, token: Token) async throws -> (history: String, read: [String: Any]) {
        let load = try await NavPrefsCommand.run(["import", file, "--database", "sqlite:" + path])
        #expect(load.status == 0, "\(load)")
        let (service, port) = try await ServiceProcess.start(database: path)
        let history = try await TestHTTP.request(port: port, "GET", key + "/history", headers: [token.bearer])
        let read = try await TestHTTP.request(port: port, "GET", key, headers: [token.bearer])
        #expect(history.status == 200 && read.status == 200, "\(history.text) \(read.text)")
        await service.stop()
        return (history.text, try read.json())
    }
}
