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
    /// Every documented operation, with its documented statuses (from the embedded
    /// openapi.json, which is made from openapi.yaml at build time).
    static var operations: [Operation] {
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

    typealias Operation = (method: String, template: String, statuses: Set<String>)

    /// Sends what `send` makes to every operation `applies` selects, on one live server, and
    /// expects `status`, documented in that operation's responses.
    static func expectEveryOperation(
        answers status: Int, where applies: (Operation) -> Bool = { _ in true },
        _ send: (TestApp, Operation) async throws -> TestResponse
    ) async throws {
        try await withApp { app in
            for operation in operations where applies(operation) {
                let response = try await send(app, operation)
                #expect(response.status == status, "\(operation.method) \(operation.template) answered \(response.status)")
                #expect(operation.statuses.contains(String(status)), "\(operation.method) \(operation.template) does not document \(status)")
            }
        }
    }

    @Test("414 uri-too-long: a target over 2 KiB, on every operation")
    func uriTooLong() async throws {
        try await Self.expectEveryOperation(answers: 414) { app, operation in
            try await app.request(operation.method, Self.target(operation.template) + "?pad=" + String(repeating: "a", count: 2_100))
        }
    }

    @Test("421 host-not-allowed: a foreign Host, on every operation but the probes, which answer any Host")
    func hostNotAllowed() async throws {
        try await Self.expectEveryOperation(answers: 421, where: { !Self.isHealth($0.template) }) { app, operation in
            try await app.request(operation.method, Self.target(operation.template), headers: [("Host", "attacker.example")])
        }
        try await withApp { app in
            for probe in ["/healthz", "/readyz"] {
                let response = try await app.request("GET", probe, headers: [("Host", "attacker.example")])
                #expect(response.status == 200, "\(probe) must answer any Host")
            }
        }
    }

    @Test("501 unsupported-transfer-coding: gzip, on every operation")
    func unsupportedCoding() async throws {
        try await Self.expectEveryOperation(answers: 501) { app, operation in
            try await app.request(operation.method, Self.target(operation.template), headers: [("Transfer-Encoding", "gzip")])
        }
    }

    @Test("431 request-headers-too-large: 70 KB of headers, on every operation", .overSockets("70 KB of headers is libmicrohttpd's own refusal, answered by the server in its place"))
    func headersTooLarge() async throws {
        try await Self.expectEveryOperation(answers: 431) { app, operation in
            try await app.request(operation.method, Self.target(operation.template), headers: [("X-Pad", String(repeating: "h", count: 70_000))])
        }
    }

    @Test("403 foreign-origin: a write from another site, on every operation that writes")
    func foreignOrigin() async throws {
        try await Self.expectEveryOperation(answers: 403, where: { $0.method != "GET" }) { app, operation in
            try await app.request(operation.method, Self.target(operation.template), headers: [("Origin", "https://attacker.example")], body: "{}")
        }
    }
}
