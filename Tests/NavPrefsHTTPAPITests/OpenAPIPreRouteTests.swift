import Foundation
import HTTPTestClient
import Testing

/// The refusals the server decides before any route runs (from the request line and headers
/// alone) can reach every operation, so every operation's `responses` must list them: a
/// client generated from openapi.yaml otherwise meets statuses it was never told of (schemathesis
/// found a 414 on the event stream this way). Each is provoked on the live server, once per
/// documented operation, and its status looked up in that operation's documented answers.
@Suite("openapi.yaml lists, for every operation, the refusals decided before routing")
struct OpenAPIPreRouteTests {
    /// Every documented operation, with its documented statuses (from openapi.json, which
    /// OpenAPIJSONTests keeps equal to openapi.yaml).
    static var operations: [(method: String, template: String, statuses: Set<String>)] {
        let methods: Set<String> = ["get", "put", "post", "delete", "patch"]
        return OpenAPIJSONTests.paths.flatMap { template, item in
            item.compactMap { method, operation -> (String, String, Set<String>)? in
                guard methods.contains(method), let operation = operation as? [String: Any],
                      let responses = operation["responses"] as? [String: Any] else { return nil }
                return (method.uppercased(), template, Set(responses.keys))
            }
        }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
    }

    /// A concrete target for a path template: each `{parameter}` becomes a plain name.
    static func target(_ template: String) -> String {
        template.replacingOccurrences(of: #"\{[^}]+\}"#, with: "x1", options: .regularExpression)
    }

    static func isHealth(_ template: String) -> Bool { template == "/healthz" || template == "/readyz" }

    @Test("every operation was found")
    func found() {
        #expect(Self.operations.count >= 40, "openapi.json lists \(Self.operations.count) operations")
    }

    @Test("414 uri-too-long: a target over 2 KiB, on every operation")
    func uriTooLong() async throws {
        try await withApp { app in
            for operation in Self.operations {
                let target = Self.target(operation.template) + "?pad=" + String(repeating: "a", count: 2_100)
                let response = try await app.request(operation.method, target)
                #expect(response.status == 414, "\(operation.method) \(operation.template) answered \(response.status)")
                #expect(operation.statuses.contains("414"), "\(operation.method) \(operation.template) does not document 414")
            }
        }
    }

    @Test("421 host-not-allowed: a foreign Host, on every operation but the probes")
    func hostNotAllowed() async throws {
        try await withApp { app in
            for operation in Self.operations {
                let response = try await app.request(operation.method, Self.target(operation.template),
                                                     headers: [("Host", "attacker.example")])
                if Self.isHealth(operation.template) {
                    #expect(response.status != 421, "\(operation.template) must answer any Host")
                } else {
                    #expect(response.status == 421, "\(operation.method) \(operation.template) answered \(response.status)")
                    #expect(operation.statuses.contains("421"), "\(operation.method) \(operation.template) does not document 421")
                }
            }
        }
    }

    @Test("501 unsupported-transfer-coding and 431 request-headers-too-large, on every operation")
    func codingAndHeaders() async throws {
        try await withApp { app in
            for operation in Self.operations {
                let target = Self.target(operation.template)
                let coding = try await app.request(operation.method, target, headers: [("Transfer-Encoding", "gzip")])
                #expect(coding.status == 501, "\(operation.method) \(operation.template) answered \(coding.status) to gzip")
                #expect(operation.statuses.contains("501"), "\(operation.method) \(operation.template) does not document 501")
                let large = try await app.request(operation.method, target, headers: [("X-Pad", String(repeating: "h", count: 70_000))])
                #expect(large.status == 431, "\(operation.method) \(operation.template) answered \(large.status) to large headers")
                #expect(operation.statuses.contains("431"), "\(operation.method) \(operation.template) does not document 431")
            }
        }
    }

    @Test("403 foreign-origin: a write from another site, on every operation that writes")
    func foreignOrigin() async throws {
        try await withApp { app in
            for operation in Self.operations where operation.method != "GET" {
                let response = try await app.request(operation.method, Self.target(operation.template),
                                                     headers: [("Origin", "https://attacker.example")], body: "{}")
                #expect(response.status == 403, "\(operation.method) \(operation.template) answered \(response.status)")
                #expect(operation.statuses.contains("403"), "\(operation.method) \(operation.template) does not document 403")
            }
        }
    }
}
