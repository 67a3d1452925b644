import Foundation
import NavPrefsHTTPAPI
import NavPrefsStore
import Testing
import NavPrefsSQLite
import NavPrefsApp

/// The promises of README.md and docs/*.md, checked: their curl examples print what they show,
/// they cover every route, and the configuration table (docs/operations.md) matches the settings
/// the binary has.
@Suite("README.md and docs/")
struct ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The pages whose examples run as one sequence, in this order: each builds on the state the
    /// ones before it left (the list of profiles in api.md shows navigation.md's profile, and
    /// access-and-security.md's first token turns authentication on for everything after it).
    /// Every other page of docs/ follows, in the order of its name.
    static let sequence = ["README.md", "docs/navigation.md", "docs/api.md", "docs/events.md", "docs/console.md",
                           "docs/operations.md", "docs/access-and-security.md"]

    static let pages: [(path: String, text: String)] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        let rest = docs.filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }.filter { !sequence.contains($0) }.sorted()
        return (sequence + rest).map { path in
            (path, (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? "")
        }
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

    /// Values that differ from run to run are compared as `*`: dates, request ids, token ids (in
    /// lists and in authors), and session ids (128 random bits, 32 hexadecimal digits).
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { line in
            for header in ["Date: ", "X-Request-ID: "] where line.hasPrefix(header) { return header + "*" }
            return line.replacing(/npt_[0-9a-f]{12}_[0-9a-f]{64}/, with: "npt_*")
                .replacing(/nps_[0-9]+_[0-9a-f]+_([0-9a-f]{12}|open)_[0-9a-f]{64}/, with: "nps_*")
                .replacing(/"id":"[0-9a-f]{12}"/, with: #""id":"*""#)
                .replacing(/"(createdAt|expiresAt|updatedAt|timestamp|at)":"[^"]*"/) { #""\#($0.1)":"*""# }
                .replacing(/"token":"[0-9a-f]{12}"/, with: #""token":"*""#)
                .replacing(/[0-9a-f]{32}/, with: "*")
        }
    }

    /// An example that assigns a shell variable, `NAME=$(command)`: the variable's name.
    static func assignedVariable(_ command: String) -> String? {
        command.wholeMatch(of: /([A-Za-z_][A-Za-z0-9_]*)=\$\(.*\)/).map { String($0.1) }
    }

    @Test("the pages of the sequence exist, and every page of docs/ is read")
    func pagesRead() throws {
        for path in Self.sequence { #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path), "\(path) is gone") }
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path).filter { $0.hasSuffix(".md") }
        #expect(Set(docs.map { "docs/" + $0 }).isSubset(of: Set(Self.pages.map(\.path))))
        #expect(Self.pages.allSatisfy { !$0.text.isEmpty })
    }

    /// The ```console blocks of openapi.yaml's descriptions (an operation may carry its example
    /// in the contract, where the API reference page shows it), each block de-indented by its
    /// fence's indentation, in the document's order.
    static var contractExamples: [(command: String, output: [String])] {
        let yaml = (try? String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8)) ?? ""
        var blocks: [String] = []
        var indent: Int?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if let current = indent {
                let text = String(line.dropFirst(min(current, line.count - trimmed.count)))
                blocks.append(text)
                if trimmed == "```" { indent = nil }
            } else if trimmed == "```console" {
                indent = line.count - trimmed.count
                blocks.append("```console")
            }
        }
        return examples(in: blocks.joined(separator: "\n"))
    }

    @Test("the curl examples of README, docs/ and openapi.yaml print exactly what they show, and cover every route")
    func curlExamples() async throws {
        let examples = Self.pages.flatMap { page in Self.examples(in: page.text).map { (page: page.path, command: $0.command, output: $0.output) } }
        #expect(examples.count >= 10)
        // The contract's examples run on a service of their own, from an empty database: each
        // stands alone, whatever the pages' sequence did (tokens, profiles in listings).
        let contract = Self.contractExamples.map { (page: "openapi.yaml", command: $0.command, output: $0.output) }
        #expect(!contract.isEmpty, "openapi.yaml carries no ```console example")
        let served = try await Self.run(examples).union(try await Self.run(contract))
        let operations = try await Self.operations()
        #expect(operations.subtracting(served).isEmpty, "routes without an example in README, docs/ or openapi.yaml: \(operations.subtracting(served).sorted())")
    }

    /// Runs `examples` in order against a service started on a new database, expects each to
    /// print what it shows, and returns the operations the service's request log names.
    static func run(_ examples: [(page: String, command: String, output: [String])]) async throws -> Set<String> {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (service, port) = try await ServiceProcess.start(database: scratch.path("readme.sqlite"))
        // `navprefs` commands run the binary under test, on the service's database.
        let path = ServiceProcess.binary.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        // Shell variables the examples assign (`SESSION=$(curl ...)`) are kept for the ones after.
        var environment = ["PATH": path, "DATABASE_URL": "sqlite:" + scratch.path("readme.sqlite")]
        for example in examples {
            let command = example.command.replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(port)")
            let result: (status: Int32, output: String)
            if let name = assignedVariable(command) {
                // Run as the shell runs it; the value goes to the later examples, nothing is printed.
                let assigned = try shell("\(command) || exit $?\nprintf '%s' \"$\(name)\"", environment: environment)
                environment[name] = assigned.output
                #expect(!assigned.output.isEmpty, "\(example.page): \(example.command) assigned nothing")
                result = (assigned.status, "")
            } else {
                result = try shell(command, environment: environment)
            }
            // A stream example ends by curl's own time limit (`-m`), which curl reports as 28.
            let expectedStatus: Int32 = example.command.hasPrefix("curl -sN -m ") ? 28 : 0
            #expect(result.status == expectedStatus, "\(example.page): \(example.command) exited \(result.status)")
            // "\r\n" is one Character in Swift: turn HTTP line ends into "\n" before splitting.
            var printed = result.output.replacingOccurrences(of: "\r\n", with: "\n")
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if printed.last == "" { printed.removeLast() }
            #expect(normalized(printed) == normalized(example.output), "\(example.page): example differs: \(example.command)")
        }
        service.send(SIGTERM)
        #expect(await service.waitForExit() == 0)

        // The request log names the route template of every request.
        return Set(service.standardOutput.split(separator: "\n").compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["msg"] as? String == "request", let status = object["status"] as? Int, status != 405,
                  let method = object["method"] as? String, let route = object["route"] as? String else { return nil }
            return "\(method) \(route)"
        })
    }

    static func operations() async throws -> Set<String> {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let store = SQLiteStore(.init(path: scratch.path("routes.sqlite")))
        let api = NavPrefsAPI(store: store, tokens: store, logger: Logger(level: .error))
        await store.close()
        return Set(api.routeTable.flatMap { route in route.methods.map { "\($0) \(route.template)" } })
    }

    @Test("the configuration table lists every setting with its environment variable and default")
    func configurationTable() {
        let rows = Self.pages.flatMap { $0.text.split(separator: "\n") }.filter { $0.hasPrefix("| `--") }.map { row in
            row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
        }
        let documented = rows.map { "\($0[0]) \($0[1]) \($0[2])" }
        let actual = Configuration.settings.map { "\($0.flag) \($0.environment) \($0.defaultValue)" }
        #expect(documented == actual)
    }
}
