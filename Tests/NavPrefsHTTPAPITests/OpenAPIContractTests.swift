import Foundation
import NavPrefsHTTPAPI
import NavPrefsStore
import Testing
import NavPrefsSQLite

/// openapi.yaml is the contract: it must describe exactly the routes the server serves and the
/// error types it answers. (Bodies and statuses are checked against the live server by
/// schemathesis in scripts/test.sh.)
@Suite("openapi.yaml describes exactly what is served")
struct OpenAPIContractTests {
    static let specification: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8)) ?? ""
    }()

    /// Operations under `paths:`: path keys are indented two spaces, method keys four. The
    /// document is written in that block style on purpose; the lint in scripts/test.sh checks the rest.
    static func describedOperations(_ yaml: String) -> Set<String> {
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]
        var operations = Set<String>()
        var inPaths = false
        var currentPath: String?
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" "), line.hasSuffix(":") || line.contains(": ") {
                inPaths = line == "paths:"
                currentPath = nil
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if let currentPath, line.hasPrefix("    "), !line.hasPrefix("     "),
                      let key = line.dropFirst(4).split(separator: ":").first, methods.contains(String(key)) {
                operations.insert("\(key.uppercased()) \(currentPath)")
            }
        }
        return operations
    }

    static func servedOperations() async throws -> Set<String> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navprefs-contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = SQLiteStore(.init(path: directory.appendingPathComponent("db.sqlite").path))
        let api = NavPrefsAPI(store: store, tokens: store, logger: Logger(level: .error))
        let operations = Set(api.routeTable.flatMap { route in route.methods.map { "\($0) \(route.template)" } })
        await store.close()
        return operations
    }

    @Test("the specification was found and lists operations")
    func specificationFound() {
        #expect(Self.describedOperations(Self.specification).count >= 6)
    }

    @Test("every served operation is described")
    func servedAreDescribed() async throws {
        let missing = try await Self.servedOperations().subtracting(Self.describedOperations(Self.specification))
        #expect(missing.isEmpty, "served but not in openapi.yaml: \(missing.sorted())")
    }

    @Test("every described operation is served")
    func describedAreServed() async throws {
        let extra = Self.describedOperations(Self.specification).subtracting(try await Self.servedOperations())
        #expect(extra.isEmpty, "in openapi.yaml but not served: \(extra.sorted())")
    }

    @Test("the Problem schema lists exactly the error types the server answers")
    func problemTypes() {
        let described = Set(Self.specification.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("- urn:navprefs:problem:") ? String(trimmed.dropFirst(2)) : nil
        })
        #expect(described == Set(ProblemType.allCases.map(\.uri)))
    }

    @Test("the line scanner reads paths and methods, and nothing outside paths:")
    func scannerSelfCheck() {
        let yaml = """
            openapi: 3.1.0
            paths:
              /a:
                parameters: []
                get:
                  responses: {}
                post:
                  description: "get: not a method"
              /b/{id}:
                delete:
                  operationId: x
            components:
              schemas:
                get:
                  type: object
            """
        #expect(Self.describedOperations(yaml) == ["GET /a", "POST /a", "DELETE /b/{id}"])
    }
}
