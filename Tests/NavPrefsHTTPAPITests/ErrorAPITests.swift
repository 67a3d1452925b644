import Foundation
import HTTPTestClient
import NavPrefsHTTPAPI
import NavPrefsApp
import Testing

/// Every error is problem+json with the right status, and nothing a client sends changes data.
@Suite("Errors and hostile input")
struct ErrorAPITests {
    @Test("unknown paths are 404 not-found", arguments: [
        // `/` (the console) and `/v1/profiles` (the list) are served: their neighbours are not.
        "//", "/console", "/v1", "/v1/profiles/", "/v1/profiles/default", "/v1/profiles/default/counter/", "/v1/profiles//counter",
        "/v1/profiles/default/counter/increment/more", "/healthz/", "/V1/profiles/default/counter",
    ])
    func unknownRoute(path: String) async throws {
        try await withApp { app in
            let response = try await app.request("GET", path)
            #expect(response.status == 404)
            #expect(try response.problemType() == problem("not-found"))
        }
    }

    @Test("a known path with another method is 405 with Allow", arguments: [
        ("DELETE", "/v1/profiles/default/counter", "GET, HEAD, PUT"),
        ("POST", "/v1/profiles/default/counter", "GET, HEAD, PUT"),
        ("GET", "/v1/profiles/default/counter/increment", "POST"),
        ("PATCH", "/v1/profiles/default/counter/reset", "POST"),
        ("TRACE", "/healthz", "GET, HEAD"),
        ("QUERY", "/healthz", "GET, HEAD"),
    ])
    func wrongMethod(method: String, path: String, allow: String) async throws {
        try await withApp { app in
            let response = try await app.request(method, path)
            #expect(response.status == 405)
            #expect(response.header("Allow") == allow)
            #expect(try response.problemType() == problem("method-not-allowed"))
        }
    }

    @Test("malformed JSON is 400 malformed-json", arguments: ["{", "{\"by\":1,}", "{\"by\":1}{}", "{\"by\":1,\"by\":2}", "\u{FF}"])
    func malformedJSON(body: String) async throws {
        try await withApp { app in
            let response = try await app.request("POST", "/v1/profiles/default/counter/increment", json: body)
            #expect(response.status == 400)
            #expect(try response.problemType() == problem("malformed-json"))
        }
    }

    @Test("a body that is not JSON is 415", arguments: [
        "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", "multipart/form-data",
    ])
    func unsupportedMediaType(contentType: String) async throws {
        try await withApp { app in
            let response = try await app.request("PUT", "/v1/profiles/default/counter",
                                                 headers: [("Content-Type", contentType)], body: #"{"value":1}"#)
            #expect(response.status == 415)
            #expect(try response.problemType() == problem("unsupported-media-type"))
            let missing = try await app.request("PUT", "/v1/profiles/default/counter", body: #"{"value":1}"#)
            #expect(missing.status == 415)
        }
    }

    @Test("JSON media types with parameters or a +json suffix are accepted",
          arguments: ["application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json"])
    func acceptedMediaTypes(contentType: String) async throws {
        try await withApp { app in
            let response = try await app.request("PUT", "/v1/profiles/default/counter",
                                                 headers: [("Content-Type", contentType)], body: #"{"value":1}"#)
            #expect(response.status == 200)
        }
    }

    @Test("a body over the limit is 413, whether or not the client expects 100-continue", .overSockets("Expect: 100-continue, and a body read and thrown away, on a connection"))
    func payloadTooLarge() async throws {
        try await withApp({ $0.maxBodyBytes = 100 }) { app in
            let body = #"{"value":1}"# + String(repeating: " ", count: 200)
            let response = try await app.request("PUT", "/v1/profiles/default/counter", json: body)
            #expect(response.status == 413)
            #expect(try response.problemType() == problem("payload-too-large"))
            let connection = try app.connection()
            try await connection.send(raw: "PUT /v1/profiles/default/counter HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                      + "Content-Length: 5000\r\nExpect: 100-continue\r\n\r\n")
            let early = try await connection.readResponse()
            #expect(early.status == 413)
            #expect(try early.problemType() == problem("payload-too-large"))
        }
    }

    @Test("conflicting framing headers are 400 problem+json", .overSockets("framing headers sent as raw bytes"))
    func conflictingFraming() async throws {
        try await withApp { app in
            let connection = try app.connection()
            try await connection.send(raw: "POST /v1/profiles/default/counter/increment HTTP/1.1\r\nHost: localhost\r\n"
                                      + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}")
            let response = try await connection.readResponse()
            #expect(response.status == 400)
            #expect(try response.problemType() == problem("bad-request-framing"))
        }
    }

    @Test("every answer says nosniff and carries a request id, echoing the client's")
    func commonHeaders() async throws {
        try await withApp { app in
            let echoed = try await app.request("GET", "/healthz", headers: [("X-Request-ID", "trace-42")])
            #expect(echoed.header("X-Request-ID") == "trace-42")
            #expect(echoed.header("X-Content-Type-Options") == "nosniff")
            let generated = try await app.request("GET", "/nowhere", headers: [("X-Request-ID", "bad id with spaces")])
            #expect(generated.header("X-Request-ID").map { !$0.contains(" ") && !$0.isEmpty } == true)
            #expect(generated.header("X-Content-Type-Options") == "nosniff")
        }
    }

    @Test("one structured log line per request, with id, method, route template, status and duration")
    func requestLog() async throws {
        try await withApp { app in
            _ = try await app.request("POST", "/v1/profiles/logged/counter/increment", headers: [("X-Request-ID", "r-1")])
            _ = try await app.request("GET", "/v1/profiles/logged/counter", headers: [("X-Request-ID", "r-2")])
            let lines = app.logLines().compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }.filter { $0["msg"] as? String == "request" }
            #expect(lines.count == 2)
            let first = try #require(lines.first { $0["request_id"] as? String == "r-1" })
            #expect(first["method"] as? String == "POST")
            #expect(first["route"] as? String == "/v1/profiles/{profile}/counter/increment")
            #expect(first["status"] as? Int == 200)
            #expect(first["duration_ms"] is Double || first["duration_ms"] is Int)
            #expect(first["level"] as? String == "info")
            #expect((first["ts"] as? String)?.hasSuffix("Z") == true)
        }
    }

    @Test("hostile requests get 4xx, never 5xx, and change no stored data")
    func hostileInputChangesNothing() async throws {
        try await withApp { app in
            _ = try await app.request("PUT", "/v1/profiles/victim/counter", json: #"{"value": 5}"#)
            var generator = SystemRandomNumberGenerator()
            let routes = ["/v1/profiles/victim/counter", "/v1/profiles/victim/counter/increment",
                          "/v1/profiles/victim/counter/decrement", "/v1/profiles/victim/counter/reset"]
            let bodies = [
                "{\"value\":\"5\"}", "{\"by\":-5}", "{\"by\":{}}", "{\"__proto__\":{}}", "null", "[]", "\"\"", "{\"value\":1e999}",
                String(repeating: "[", count: 5000), "{\"value\":" + String(repeating: "9", count: 400) + "}",
            ] + (0..<40).map { _ in String(decoding: (0..<Int.random(in: 1...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }, as: UTF8.self) }
            for route in routes {
                for body in bodies {
                    for method in ["POST", "PUT"] {
                        let response = try await app.request(method, route, headers: [("If-Match", "\"1\"")], json: body)
                        #expect((400..<500).contains(response.status), "\(method) \(route) \(body.prefix(30)) -> \(response.status)")
                    }
                }
            }
            let state = try await app.request("GET", "/v1/profiles/victim/counter")
            #expect(try state.int("value") == 5)
            #expect(try state.int("version") == 1)
            #expect(try await app.request("GET", "/healthz").status == 200)
        }
    }
}
