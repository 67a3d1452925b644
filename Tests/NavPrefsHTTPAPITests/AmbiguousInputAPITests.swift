import Foundation
import HTTPTestClient
import Testing

/// Input that could be read two ways, or not exactly, is refused or read as documented
/// (issue 32, item 6). Before: of two `Authorization` or `Last-Event-ID` fields the first won
/// silently, `Last-Event-ID: 3 ` (a trailing space) reset the stream, and `1e-400` was stored
/// as `0.0`.
@Suite("Ambiguous and inexact input", .overSockets("event streams and header fields sent as bytes"))
struct AmbiguousInputAPITests {
    @Test("two Authorization, Last-Event-ID or Idempotency-Key fields are 400 repeated-header-field naming the field")
    func repeatedFields() async throws {
        try await withApp { app in
            for (name, values, method, path) in [("Authorization", ["Bearer a", "Bearer b"], "GET", "/v1/profiles/x/counter"),
                                                 ("Last-Event-ID", ["1", "0"], "GET", "/v1/profiles/x/events"),
                                                 ("Idempotency-Key", ["k1", "k2"], "POST", "/v1/profiles/x/counter/increment")] {
                let answer = try await TestHTTP.request(port: app.port, method, path, headers: values.map { (name, $0) })
                #expect(answer.status == 400, "\(name): \(answer.text)")
                #expect(try answer.problemType() == problem("repeated-header-field"), "\(name)")
                #expect(try answer.json()["field"] as? String == name)
            }
            #expect(try await app.request("GET", "/v1/profiles/x/counter").int("value") == 0, "the keyed write did not run")
        }
    }

    @Test("Last-Event-ID with spaces or a tab around it resumes after that id, as without them")
    func surroundingWhitespace() async throws {
        try await withApp { app in
            for _ in 0..<3 { _ = try await app.request("POST", "/v1/profiles/x/counter/increment") }
            for value in ["2 ", " 2", "2\t", " 2 "] {
                let stream = try await SSEClient.open(port: app.port, path: "/v1/profiles/x/events", headers: [("Last-Event-ID", value)])
                _ = try await stream.next()  // retry
                let next = try #require(try await stream.next())
                #expect(next.id == "3" && next.event == "counter", "Last-Event-ID '\(value)': \(next)")
            }
        }
    }

    @Test("a number that underflows to 0 (1e-400) is 400, never stored as 0.0; 0.0 and 1e-300 are stored")
    func underflow() async throws {
        try await withApp { app in
            for body in [#"{"value":1e-400}"#, #"{"value":[1,{"a":-2.5e-999}]}"#, "{\"value\":0.\(String(repeating: "0", count: 400))1}"] {
                let refused = try await app.request("PUT", "/v1/profiles/x/preferences/tiny", json: body)
                #expect(refused.status == 400, "\(body.prefix(40)): \(refused.text)")
                #expect(refused.text.contains("too small for a double"))
            }
            #expect(try await app.request("GET", "/v1/profiles/x/preferences/tiny").status == 404)
            #expect(try await app.request("PUT", "/v1/profiles/x/preferences/zero", json: #"{"value":0.0e-400}"#).status == 201)
            #expect(try await app.request("PUT", "/v1/profiles/x/preferences/small", json: #"{"value":1e-300}"#).status == 201)
        }
    }
}
