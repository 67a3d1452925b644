import Foundation
import HTTPTestClient
import NavPrefsHTTPAPI
import NavPrefsApp
import Testing

/// The counter over a real socket: semantics C-1..C-7, A-1, A-2.
@Suite("Counter API")
struct CounterAPITests {
    let counter = "/v1/profiles/default/counter"

    @Test("C-1: a counter nobody wrote to reads 0 with ETag \"0\", on the default profile and any other (a fresh suite)")
    func freshCounter() async throws {
        try await withApp { app in
            let response = try await app.request("GET", counter)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("ETag") == "\"0\"")
            #expect(response.text == #"{"profile":"default","value":0,"stringValue":"0","version":0}"# + "\n")
            let fresh = try await app.request("GET", "/v1/profiles/alice/counter")
            #expect(fresh.status == 200)
            #expect(fresh.header("ETag") == "\"0\"")
            #expect(fresh.text == #"{"profile":"alice","value":0,"stringValue":"0","version":0}"# + "\n")
        }
    }

    @Test("C-2, C-3, C-4: plus, minus below zero, by n, clear, set; each answers the new state and persists")
    func operations() async throws {
        try await withApp { app in
            let base = "/v1/profiles/alice/counter"
            var response = try await app.request("POST", base + "/increment")
            #expect(response.status == 200)
            #expect(try response.int("value") == 1)
            #expect(try response.int("eventId") == 1)
            #expect(response.header("ETag") == "\"1\"")
            response = try await app.request("POST", base + "/decrement", json: #"{"by": 3}"#)
            #expect(try response.int("value") == -2)
            #expect(try response.json()["stringValue"] as? String == "-2")
            response = try await app.request("POST", base + "/increment", json: #"{"by": 1104.0}"#)
            #expect(try response.int("value") == 1102, "JSON Schema integers include 1104.0")
            response = try await app.request("POST", base + "/reset")
            #expect(try response.int("value") == 0)
            response = try await app.request("POST", base + "/reset", json: "{}")
            #expect(try response.int("value") == 0)
            response = try await app.request("PUT", base, json: #"{"value": -9223372036854775808}"#)
            #expect(try response.int("value") == .min)
            let read = try await app.request("GET", base)
            #expect(try read.int("value") == .min)
            #expect(try read.int("version") == 6)
            #expect(read.header("ETag") == "\"6\"")
        }
    }

    @Test("C-5: a value that is not an Int64 integer is refused and nothing is stored", arguments: [
        #"{"value": "7"}"#, #"{"value": 1.5}"#, #"{"value": null}"#, #"{"value": true}"#, #"{"value": [1]}"#,
        #"{"value": 9223372036854775808}"#, #"{"value": 1e19}"#, #"{}"#, #"{"value": 1, "extra": 2}"#, "[1]", "7",
    ])
    func nonIntegerRefused(body: String) async throws {
        try await withApp { app in
            let response = try await app.request("PUT", counter, json: body)
            #expect(response.status == 400, "\(body) -> \(response.text)")
            #expect([problem("invalid-body"), problem("malformed-json")].contains(try response.problemType()))
            #expect(try await app.request("GET", counter).int("version") == 0)
        }
    }

    @Test("steps must be whole numbers of at least 1", arguments: [
        #"{"by": 0}"#, #"{"by": -1}"#, #"{"by": 2.5}"#, #"{"by": "1"}"#, #"{"by": 9223372036854775808}"#, #"{"step": 1}"#,
    ])
    func invalidSteps(body: String) async throws {
        try await withApp { app in
            let response = try await app.request("POST", counter + "/increment", json: body)
            #expect(response.status == 400, "\(body) -> \(response.text)")
            #expect(try await app.request("GET", counter).int("value") == 0)
            if body.contains("by") && !body.contains("9223372036854775808") {  // too big for JSON here: malformed-json
                // The range a step really has (1 and up), and what was sent.
                let detail = try response.json()["detail"] as? String ?? ""
                #expect(detail.hasPrefix("'by' must be a whole number from 1 to 9223372036854775807, not "), "\(detail)")
                if body == #"{"by": 2.5}"# { #expect(detail.hasSuffix("not number 2.5.")) }
                if body == #"{"by": "1"}"# { #expect(detail.hasSuffix(#"not string "1"."#)) }
            }
        }
    }

    @Test("C-7: overflow and underflow answer 409 and change nothing; max-1 plus 1 succeeds")
    func overflow() async throws {
        try await withApp { app in
            _ = try await app.request("PUT", counter, json: #"{"value": 9223372036854775806}"#)
            #expect(try await app.request("POST", counter + "/increment").int("value") == .max)
            let refused = try await app.request("POST", counter + "/increment")
            #expect(refused.status == 409)
            #expect(try refused.problemType() == problem("counter-out-of-range"))
            #expect(try refused.int("currentValue") == .max)
            _ = try await app.request("PUT", counter, json: #"{"value": -9223372036854775808}"#)
            #expect(try await app.request("POST", counter + "/decrement").status == 409)
            #expect(try await app.request("POST", counter + "/decrement", json: #"{"by": 9223372036854775807}"#).status == 409)
            let after = try await app.request("GET", counter)
            #expect(try after.int("value") == .min)
            #expect(try after.int("version") == 3)
        }
    }

    @Test("A-1: If-Match must name the current version; a mismatch is 412 with the current ETag")
    func ifMatch() async throws {
        try await withApp { app in
            let stale = try await app.request("PUT", counter, headers: [("If-Match", "\"7\"")], json: #"{"value": 1}"#)
            #expect(stale.status == 412)
            #expect(stale.header("ETag") == "\"0\"")
            #expect(try stale.problemType() == problem("precondition-failed"))
            let fresh = try await app.request("PUT", counter, headers: [("If-Match", "\"0\"")], json: #"{"value": 1}"#)
            #expect(fresh.status == 200)
            #expect(fresh.header("ETag") == "\"1\"")
            #expect(try await app.request("POST", counter + "/increment", headers: [("If-Match", "\"5\", \"1\"")]).status == 200)
            #expect(try await app.request("POST", counter + "/increment", headers: [("If-Match", "W/\"2\"")]).status == 412,
                    "If-Match uses the strong comparison")
            #expect(try await app.request("POST", counter + "/reset", headers: [("If-Match", "*")]).status == 200)
            let nobody = try await app.request("POST", "/v1/profiles/nobody/counter/increment", headers: [("If-Match", "\"1\"")])
            #expect(nobody.status == 412, "a counter never written is at version 0")
            #expect(nobody.header("ETag") == "\"0\"")
            #expect(try await app.request("GET", "/v1/profiles/nobody/counter").int("version") == 0, "and nothing changed")
            let first = try await app.request("POST", "/v1/profiles/newdevice/counter/increment", headers: [("If-Match", "\"0\"")])
            #expect(first.status == 200, "the ETag a fresh counter reads admits the first write")
            let once = try await app.request("PUT", "/v1/profiles/once/counter", headers: [("If-None-Match", "*")], json: #"{"value": 5}"#)
            #expect(once.status == 200, "If-None-Match: * admits a counter never written")
            let twice = try await app.request("PUT", "/v1/profiles/once/counter", headers: [("If-None-Match", "*")], json: #"{"value": 6}"#)
            #expect(twice.status == 412)
            #expect(try twice.json()["detail"] as? String ?? "" == "If-None-Match: the resource exists, at version \"1\", which the condition excludes.")
        }
    }

    @Test("A-1: two writers holding the same ETag: exactly one wins", .overSockets("concurrent clients on their own connections and threads"))
    func etagRace() async throws {
        try await withApp { app in
            let port = app.port
            let path = counter
            let statuses = try await TestHTTP.onThreads(8) { index in
                try TestHTTP.request(port: port, "PUT", path, headers: [("If-Match", "\"0\"")], json: "{\"value\": \(index)}").status
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 412 }.count == 7)
        }
    }

    @Test("A-2: If-None-Match with the current ETag answers 304 without a body", .overSockets("one keep-alive connection after 304s: framing on the wire"))
    func ifNoneMatch() async throws {
        try await withApp { app in
            let connection = try app.connection()
            let unchanged = try await connection.request("GET", counter, headers: [("If-None-Match", "\"0\"")])
            #expect(unchanged.status == 304)
            #expect(unchanged.header("ETag") == "\"0\"")
            #expect(unchanged.body.isEmpty)
            #expect(try await connection.request("GET", counter, headers: [("If-None-Match", "W/\"0\"")]).status == 304)
            #expect(try await connection.request("GET", counter, headers: [("If-None-Match", "\"3\"")]).status == 200)
            _ = try await connection.request("POST", counter + "/increment")
            #expect(try await connection.request("GET", counter, headers: [("If-None-Match", "\"0\"")]).status == 200)
        }
    }

    @Test("HEAD answers GET's headers without the body")
    func head() async throws {
        try await withApp { app in
            let response = try await app.request("HEAD", counter)
            #expect(response.status == 200)
            #expect(response.header("ETag") == "\"0\"")
            #expect(response.header("Content-Length") == "62")
            #expect(response.body.isEmpty)
        }
    }

    @Test("C-6: 400 concurrent increments from 16 clients add exactly 400, each seeing a distinct value", .overSockets("concurrent clients on their own connections and threads"))
    func concurrentIncrements() async throws {
        try await withApp { app in
            let port = app.port
            let values = try await TestHTTP.onThreads(16) { _ in
                let connection = try TestConnection(port: port)
                return try (0..<25).map { _ in
                    let response = try connection.request("POST", "/v1/profiles/race/counter/increment")
                    guard response.status == 200, let value = try response.int("value") else {
                        throw TestClientError.malformed("increment failed: \(response.status) \(response.text)")
                    }
                    return value
                }
            }.flatMap { $0 }
            #expect(values.sorted() == Array(1...400))
            let final = try await app.request("GET", "/v1/profiles/race/counter")
            #expect(try final.int("value") == 400)
            #expect(try final.int("version") == 400)
        }
    }

    @Test("profile names are validated", arguments: ["-x", "a.b_c-", String(repeating: "p", count: 65), "%E2%9C%93"])
    func profileNames(name: String) async throws {
        try await withApp { app in
            let response = try await app.request("GET", "/v1/profiles/\(name)/counter")
            if name == "a.b_c-" {
                #expect(response.status == 200)  // valid, just never written: a fresh suite
            } else {
                #expect(response.status == 400)
                #expect(try response.problemType() == problem("invalid-profile-name"))
            }
        }
    }
}
