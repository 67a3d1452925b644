import Foundation
import NavPrefsHTTPAPI
import NavPrefsStore
import Testing
import NavPrefsSQLite
import NavPrefsApp

/// README.md's promises, checked: its curl examples print what it shows, they cover every
/// route, and its configuration table matches the settings the binary has.
@Suite("README.md")
struct ReadmeTests {
    static let readme: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
    }()

    /// `$ command` lines of ```console blocks, each with the output lines that follow it.
    static func examples(in markdown: String) -> [(command: String, output: [String])] {
        var examples: [(command: String, output: [String])] = []
        var inConsole = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                inConsole = line == "```console"
                continue
            }
            guard inConsole else { continue }
            if line.hasPrefix("$ ") {
                examples.append((String(line.dropFirst(2)), []))
            } else if !examples.isEmpty {
                examples[examples.count - 1].output.append(line)
            }
        }
        return examples
    }

    /// Values that differ from run to run are compared as `*`: dates, request ids, and session
    /// ids (128 random bits, 32 hexadecimal digits).
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { line in
            for header in ["Date: ", "X-Request-ID: "] where line.hasPrefix(header) { return header + "*" }
            return line.replacing(/npt_[0-9a-f]{12}_[0-9a-f]{64}/, with: "npt_*")
                .replacing(/nps_[0-9]+_[0-9a-f]+_([0-9a-f]{12}|open)_[0-9a-f]{64}/, with: "nps_*")
                .replacing(/"id":"[0-9a-f]{12}"/, with: #""id":"*""#)
                .replacing(/"(createdAt|expiresAt|updatedAt|timestamp)":"[^"]*"/) { #""\#($0.1)":"*""# }
                .replacing(/[0-9a-f]{32}/, with: "*")
        }
    }

    /// Tokens the examples printed, for the examples after them: `$ADMIN_TOKEN` (the last admin
    /// token made, by the command line or the API), `$TOKEN` and `$TOKEN_ID` (the last profile
    /// token), `$STREAM_TOKEN`.
    static func tokens(in output: String, command: String, into environment: inout [String: String]) {
        if command.hasPrefix("navprefs tokens create --admin"), let made = output.wholeMatch(of: /(npt_[0-9a-f_]+)\n?/) {
            environment["ADMIN_TOKEN"] = String(made.1)
        }
        if let made = output.firstMatch(of: /"id":"([0-9a-f]{12})","profile":(null|"[^"]*"),"admin":(true|false),.*"token":"(npt_[0-9a-f_]+)"/) {
            if made.3 == "true" {
                environment["ADMIN_TOKEN"] = String(made.4)
            } else {
                environment["TOKEN"] = String(made.4)
                environment["TOKEN_ID"] = String(made.1)
            }
        }
        if let stream = output.firstMatch(of: /"token":"(nps_[0-9a-z_]+)"/) { environment["STREAM_TOKEN"] = String(stream.1) }
    }

    /// The last session id an example printed: the examples use it as `$SESSION`.
    static func sessionID(in output: String) -> String? {
        output.firstMatch(of: /"session":"([0-9a-f]{32})"/).map { String($0.1) }
    }

    @Test("the curl examples print exactly what README shows, and cover every route")
    func curlExamples() async throws {
        let examples = Self.examples(in: Self.readme)
        #expect(examples.count >= 10)
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (service, port) = try await ServiceProcess.start(database: scratch.path("readme.sqlite"))
        // `navprefs` commands run the binary under test, on the service's database.
        let path = ServiceProcess.binary.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        var environment = ["SESSION": "", "PATH": path, "DATABASE_URL": "sqlite:" + scratch.path("readme.sqlite")]
        for example in examples {
            let command = example.command.replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(port)")
            let result = try shell(command, environment: environment)
            environment["SESSION"] = Self.sessionID(in: result.output) ?? environment["SESSION"]
            Self.tokens(in: result.output, command: example.command, into: &environment)
            // A stream example ends by curl's own time limit (`-m`), which curl reports as 28.
            let expectedStatus: Int32 = example.command.hasPrefix("curl -sN -m ") ? 28 : 0
            #expect(result.status == expectedStatus, "\(example.command) exited \(result.status)")
            // "\r\n" is one Character in Swift: turn HTTP line ends into "\n" before splitting.
            var printed = result.output.replacingOccurrences(of: "\r\n", with: "\n")
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if printed.last == "" { printed.removeLast() }
            #expect(Self.normalized(printed) == Self.normalized(example.output), "README example differs: \(example.command)")
        }
        service.send(SIGTERM)
        #expect(await service.waitForExit() == 0)

        // Every operation was exercised by some example (the request log names route templates).
        let served = Set(service.standardOutput.split(separator: "\n").compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["msg"] as? String == "request", let status = object["status"] as? Int, status != 405,
                  let method = object["method"] as? String, let route = object["route"] as? String else { return nil }
            return "\(method) \(route)"
        })
        let operations = try await Self.operations()
        #expect(operations.subtracting(served).isEmpty, "routes without a README example: \(operations.subtracting(served).sorted())")
    }

    static func operations() async throws -> Set<String> {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = SQLiteStore(.init(path: scratch.path("routes.sqlite")))
        let api = NavPrefsAPI(store: store, logger: Logger(level: .error))
        await store.close()
        return Set(api.routeTable.flatMap { route in route.methods.map { "\($0) \(route.template)" } })
    }

    @Test("the configuration table lists every setting with its environment variable and default")
    func configurationTable() {
        let rows = Self.readme.split(separator: "\n").filter { $0.hasPrefix("| `--") }.map { row in
            row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
        }
        let documented = rows.map { "\($0[0]) \($0[1]) \($0[2])" }
        let actual = Configuration.settings.map { "\($0.flag) \($0.environment) \($0.defaultValue)" }
        #expect(documented == actual)
    }
}
