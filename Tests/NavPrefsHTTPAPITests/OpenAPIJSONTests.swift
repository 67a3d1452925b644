import Foundation
import NavPrefsConsole
import Testing

/// openapi.json is made from openapi.yaml at build time (ConsoleAssetEmbedder, with libyaml) and
/// compiled into the binary; scripts/test holds the converter to PyYAML byte for byte
/// (scripts/check-openapi-json.py). Here the document the binary serves is read as JSON and must
/// describe what the YAML does: the same operations, operation ids, schemas and version.
@Suite("openapi.json is openapi.yaml as JSON")
struct OpenAPIJSONTests {
    /// The embedded document, read per use: `[String: Any]` is not Sendable, so it cannot be a shared static.
    static var json: [String: Any] {
        guard let file = ConsoleFiles.file("openapi.json"),
              let object = try? JSONSerialization.jsonObject(with: Data(file.bytes)) as? [String: Any] else { return [:] }
        return object
    }

    static var paths: [String: [String: Any]] { (json["paths"] as? [String: [String: Any]]) ?? [:] }

    /// Names the YAML lists under `key:` at `indent` spaces (its block style, as the contract test reads it).
    static func yamlNames(after header: String, indent: Int) -> Set<String> {
        var names = Set<String>()
        var inside = false
        let prefix = String(repeating: " ", count: indent)
        for line in OpenAPIContractTests.specification.split(separator: "\n") {
            if line == header { inside = true; continue }
            guard inside else { continue }
            let leading = line.prefix { $0 == " " }.count
            if leading < indent, !line.trimmingCharacters(in: .whitespaces).isEmpty { break }
            if line.hasPrefix(prefix), leading == indent, line.hasSuffix(":") {
                names.insert(String(line.dropFirst(indent).dropLast()))
            }
        }
        return names
    }

    @Test("the same operations")
    func operations() {
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]
        let inJSON = Set(Self.paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" } })
        #expect(!inJSON.isEmpty, "openapi.json is not embedded or has no paths")
        let differ = inJSON.symmetricDifference(OpenAPIContractTests.describedOperations(OpenAPIContractTests.specification))
        #expect(differ.isEmpty, "openapi.json and openapi.yaml differ; in one only: \(differ.sorted())")
    }

    @Test("the same operation ids, schemas and version")
    func idsSchemasVersion() {
        let yamlIDs = Set(OpenAPIContractTests.specification.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("operationId: ") ? String(trimmed.dropFirst("operationId: ".count)) : nil
        })
        let jsonIDs = Set(Self.paths.values.flatMap { item in item.values.compactMap { ($0 as? [String: Any])?["operationId"] as? String } })
        #expect(jsonIDs == yamlIDs, "openapi.json and openapi.yaml differ: \(jsonIDs.symmetricDifference(yamlIDs).sorted())")

        let schemas = ((Self.json["components"] as? [String: Any])?["schemas"] as? [String: Any]).map { Set($0.keys) } ?? []
        let yamlSchemas = Self.yamlNames(after: "  schemas:", indent: 4)
        #expect(schemas == yamlSchemas, "openapi.json and openapi.yaml differ: \(schemas.symmetricDifference(yamlSchemas).sorted())")

        let version = (Self.json["info"] as? [String: Any])?["version"] as? String
        #expect(OpenAPIContractTests.specification.contains("\n  version: \(version ?? "?")\n"))
    }
}
