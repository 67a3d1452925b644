import Foundation
import HTTPTestClient
import Testing

/// A retry under an `Idempotency-Key` whose first answer was over 64 KiB gets that answer's
/// summary (issue 21): openapi.yaml must describe it on every keyed write, and the summary the
/// server sends must be what it describes.
@Suite("openapi.yaml describes replays, summarised ones included")
struct OpenAPIReplayTests {
    static var components: [String: Any] { (OpenAPIJSONTests.json["components"] as? [String: Any]) ?? [:] }

    /// `object`, or what its `$ref` names (`#/components/<kind>/<name>`).
    static func resolved(_ object: [String: Any]) -> [String: Any] {
        guard let reference = object["$ref"] as? String else { return object }
        let parts = reference.split(separator: "/").map(String.init)
        guard parts.count == 4, parts[0] == "#", parts[1] == "components" else { return [:] }
        return ((components[parts[2]] as? [String: Any])?[parts[3]] as? [String: Any]) ?? [:]
    }

    /// Every operation that takes `Idempotency-Key`, with its success answers (resolved).
    static var keyedWrites: [(operation: String, status: String, response: [String: Any])] {
        var found: [(operation: String, status: String, response: [String: Any])] = []
        for (template, item) in OpenAPIJSONTests.paths {
            for (method, operation) in item {
                guard let operation = operation as? [String: Any], let responses = operation["responses"] as? [String: Any],
                      let parameters = operation["parameters"] as? [[String: Any]],
                      parameters.contains(where: { ($0["$ref"] as? String) == "#/components/parameters/IdempotencyKey" })
                else { continue }
                for (status, response) in responses where status.hasPrefix("2") {
                    guard let response = response as? [String: Any] else { continue }
                    found.append(("\(method.uppercased()) \(template)", status, resolved(response)))
                }
            }
        }
        return found.sorted { ($0.operation, $0.status) < ($1.operation, $1.status) }
    }

    @Test("every keyed write's success answer lists Idempotent-Replayed and, beside its own schema, the ReplaySummary")
    func everyKeyedWriteDescribesReplays() {
        let writes = Self.keyedWrites
        #expect(writes.count >= 25, "found \(writes.count) keyed success answers")
        for write in writes {
            let headers = write.response["headers"] as? [String: Any] ?? [:]
            #expect(headers["Idempotent-Replayed"] != nil, "\(write.operation) \(write.status) lists no Idempotent-Replayed")
            let schema = ((write.response["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any]
            let alternatives = (schema?["anyOf"] as? [[String: Any]] ?? []).compactMap { $0["$ref"] as? String }
            #expect(alternatives.contains("#/components/schemas/ReplaySummary"),
                    "\(write.operation) \(write.status): its schema does not allow a replay's summary")
        }
    }

    /// What of JSON Schema ReplaySummary uses, checked here; any other keyword fails, so that a
    /// change of the schema cannot pass unchecked.
    static func violations(of value: Any, against schema: [String: Any], at pointer: String = "") -> [String] {
        var found: [String] = []
        for (keyword, argument) in schema {
            switch keyword {
            case "description":
                continue
            case "type":
                let allowed = (argument as? [String]) ?? [(argument as? String) ?? "?"]
                let type: String = switch value {
                case is NSNull: "null"
                case is String: "string"
                case is [Any]: "array"
                case is [String: Any]: "object"
                case is NSNumber: "number"  // or a boolean: JSONSerialization gives both as NSNumber
                default: "?"
                }
                if !allowed.contains(type) && !(type == "number" && !Set(allowed).isDisjoint(with: ["integer", "boolean"])) {
                    found.append("\(pointer): a \(type), not \(allowed)")
                }
            case "const":
                if (argument as? Bool) == true, (value as? Bool) != true {
                    found.append("\(pointer): not true")
                }
            case "required":
                for name in argument as? [String] ?? [] where (value as? [String: Any])?[name] == nil {
                    found.append("\(pointer): no member \(name)")
                }
            case "maxProperties":
                if let object = value as? [String: Any], object.count > (argument as? Int ?? 0) { found.append("\(pointer): \(object.count) members") }
            case "maxLength":
                if let text = value as? String, text.count > (argument as? Int ?? 0) { found.append("\(pointer): \(text.count) characters") }
            case "properties", "additionalProperties":
                continue  // below, member by member
            default:
                found.append("\(pointer): keyword \(keyword) is not checked here")
            }
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (name, member) in object {
                if let own = properties[name] as? [String: Any] {
                    found += violations(of: member, against: own, at: pointer + "/" + name)
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    found += violations(of: member, against: additional, at: pointer + "/" + name)
                } else if (schema["additionalProperties"] as? Bool) == false {
                    found.append("\(pointer)/\(name): not allowed")
                }
            }
        }
        return found
    }

    @Test("a replayed PATCH whose answer was over 2 KiB is the ReplaySummary, with the first answer's status and ETag")
    func summarisedReplayMatchesTheContract() async throws {
        let summary = try #require(Self.components["schemas"].flatMap { ($0 as? [String: Any])?["ReplaySummary"] as? [String: Any] })
        try await withApp { app in
            let headers = [("Idempotency-Key", "big-patch"), ("Content-Type", "application/merge-patch+json")]
            let patch = #"{"n":1,"text":"\#(String(repeating: "t", count: 3_000))"}"#
            let first = try await app.request("PATCH", "/v1/profiles/big/preferences", headers: headers, body: patch)
            #expect(first.status == 200)
            #expect(first.body.count > 2 << 10, "the first answer holds the new value of 'text'")
            #expect(Self.violations(of: try first.json(), against: summary).contains { $0.hasSuffix("not [\"string\", \"number\", \"boolean\", \"null\"]") },
                    "the whole answer is not a summary")
            let replay = try await app.request("PATCH", "/v1/profiles/big/preferences", headers: headers, body: patch)
            #expect(replay.status == 200)
            #expect(replay.header("Idempotent-Replayed") == "true")
            #expect(replay.header("ETag") == first.header("ETag"))
            #expect(replay.header("Content-Type") == "application/json")
            let body = try replay.json()
            #expect(Self.violations(of: body, against: summary) == [], "\(replay.text)")
            #expect(replay.text.contains(#""summarized":true"#))
            #expect(body["profile"] as? String == "big")
            #expect((body["version"] as? NSNumber)?.int64Value == (try first.json()["version"] as? NSNumber)?.int64Value)
            #expect(body["changes"] == nil, "objects and arrays are left out")
        }
    }
}
