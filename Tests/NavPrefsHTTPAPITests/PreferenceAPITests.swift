import Foundation
import HTTPTestClient
import NavPrefsCore
import NavPrefsHTTPAPI
import NavPrefsStore
import NavPrefsApp
import Testing

/// Preferences, registered defaults and the font settings over a real socket (P-1..P-7, F-1..F-7).
@Suite("Preferences, defaults and font API")
struct PreferenceAPITests {
    let base = "/v1/profiles/ana"

    /// Events of a profile, read from the store the service uses.
    func events(_ app: TestApp, _ profile: String = "ana") async throws -> [String] {
        try await app.app.store.events(of: try ProfileName(profile), after: 0, limit: 1_000).map(\.type.rawValue)
    }

    @Test("PUT stores any JSON value exactly; GET reads it back with its source and ETag; 201 when created")
    func storeAndRead() async throws {
        try await withApp { app in
            let values = [#""dark""#, "1", "1.0", "0.1", "true", "[1,\"x\",[]]", #"{"z":1,"a":{"b":[]}}"#, "-9223372036854775808",
                          "1e+20", "1e-300", "-0.0"]
            for (index, value) in values.enumerated() {
                let put = try await app.request("PUT", base + "/preferences/k\(index)", json: "{\"value\":\(value)}")
                #expect(put.status == 201)
                #expect(put.text == "{\"key\":\"k\(index)\",\"value\":\(value),\"source\":\"stored\",\"version\":\(index + 1),\"eventId\":\(index + 1)}\n")
                let get = try await app.request("GET", base + "/preferences/k\(index)")
                #expect(get.status == 200)
                // The read also says who last changed the value, and when: here the open mode, with no device named.
                #expect(get.text.wholeMatch(of: try Regex(
                    #"\{"key":"k\#(index)","value":\#(NSRegularExpression.escapedPattern(for: value)),"source":"stored","version":\#(index + 1),"#
                    + #""lastChange":\{"at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","author":\{"token":"open"\}\}\}\n"#)) != nil, "\(get.text)")
                #expect(get.header("ETag") == "\"\(index + 1)\"")
            }
            #expect(try await app.request("PUT", base + "/preferences/k0", json: #"{"value":"light"}"#).status == 200)
        }
    }

    @Test("P-1..P-4: typed reads answer what Foundation's getters answer, also for absent keys", arguments: [
        (#""123""#, "integer", "123"), ("2.67", "integer", "2"), ("-2.67", "integer", "-2"), ("true", "integer", "1"),
        (#""123.4""#, "float", "123.4000015258789"), (#""123.4""#, "double", "123.4"), ("2", "float", "2.0"), ("true", "double", "1.0"),
        (#""YES""#, "bool", "true"), (#""yes""#, "bool", "true"), ("2", "bool", "true"), ("0.5", "bool", "true"),
        (#"" 1""#, "bool", "true"), (#""-3""#, "bool", "true"), (#""no""#, "bool", "false"), ("[1]", "bool", "false"),
        ("123", "string", #""123""#), ("2.0", "string", #""2.0""#), ("[1]", "string", "null"),
        (#"["a","b"]"#, "stringArray", #"["a","b"]"#), ("[1]", "stringArray", "null"), (#"{"a":1}"#, "dictionary", #"{"a":1}"#),
        ("[1]", "array", "[1]"), (#""/tmp/x""#, "url", #""file:///tmp/x""#), ("1", "object", "1"),
        (#""1e400""#, "double", #""Infinity""#), ("1e300", "float", #""Infinity""#),
    ])
    func typedReads(stored: String, type: String, expected: String) async throws {
        try await withApp { app in
            _ = try await app.request("PUT", base + "/preferences/k", json: "{\"value\":\(stored)}")
            let response = try await app.request("GET", base + "/preferences/k?as=\(type)")
            #expect(response.text == "{\"key\":\"k\",\"as\":\"\(type)\",\"value\":\(expected),\"source\":\"stored\"}\n")
            let absent = try await app.request("GET", base + "/preferences/nothing?as=\(type)")
            #expect(absent.status == 200)
            #expect(try absent.json()["source"] as? String == "absent")
        }
    }

    @Test("P-5/P-6: registered defaults show where nothing is stored, and again after DELETE")
    func defaultsLayer() async throws {
        try await withApp { app in
            let put = try await app.request("PUT", base + "/defaults", json: #"{"theme":"light","volume":0.5}"#)
            #expect(put.status == 200)
            #expect(put.text == #"{"profile":"ana","values":{"theme":"light","volume":0.5},"version":1,"eventId":1}"# + "\n")
            #expect(try await app.request("GET", base + "/defaults").text
                    == #"{"profile":"ana","values":{"theme":"light","volume":0.5},"version":1}"# + "\n")
            var read = try await app.request("GET", base + "/preferences/theme")
            #expect(try read.json()["value"] as? String == "light")
            #expect(try read.json()["source"] as? String == "registered")
            #expect(try await app.request("PUT", base + "/preferences/theme", json: #"{"value":"dark"}"#).status == 200,
                    "the key had a value (its default), so this is no creation")
            #expect(try await app.request("GET", base + "/preferences").text
                    == #"{"profile":"ana","values":{"theme":"dark","volume":0.5},"version":2}"# + "\n")
            let removed = try await app.request("DELETE", base + "/preferences/theme")
            #expect(removed.status == 200)
            #expect(removed.text == #"{"key":"theme","value":"light","source":"registered","version":3,"eventId":3}"# + "\n")
            read = try await app.request("GET", base + "/preferences/theme")
            #expect(try read.json()["value"] as? String == "light")
            let again = try await app.request("DELETE", base + "/preferences/theme")
            #expect(again.status == 200, "removeObject(forKey:) of a key with nothing stored changes nothing")
            #expect(again.text == #"{"key":"theme","value":"light","source":"registered","version":3,"eventId":null}"# + "\n")
            #expect(try await app.request("GET", base + "/preferences/unknown").status == 404)
            #expect(try await events(app) == ["preference", "preference", "preference"])
        }
    }

    @Test("the counter and numIndex are one value, both ways")
    func counterTypedView() async throws {
        try await withApp { app in
            _ = try await app.request("POST", base + "/counter/increment", json: #"{"by":5}"#)
            let numIndex = try await app.request("GET", base + "/preferences/numIndex")
            #expect(try numIndex.json()["value"] as? String == "5", "the seed's string form")
            #expect(try await app.request("PUT", base + "/preferences/numIndex", json: #"{"value":"12"}"#).status == 200)
            #expect(try await app.request("GET", base + "/counter").int("value") == 12)
            let broken = try await app.request("PUT", base + "/preferences/numIndex", json: #"{"value":"twelve"}"#)
            #expect(broken.status == 422)
            #expect(try broken.problemType() == problem("invalid-value"))
            #expect(try await app.request("PUT", base + "/defaults", json: #"{"numIndex":1.5}"#).status == 422)
            #expect(try await app.request("GET", base + "/counter").int("value") == 12)
            _ = try await app.request("DELETE", base + "/preferences/numIndex")
            #expect(try await app.request("GET", base + "/counter").int("value") == 0)
            #expect(try await events(app) == ["counter", "counter", "counter"], "numIndex changes are counter events, whatever the route")
        }
    }

    @Test("F-1..F-6: the slider is rounded, the size is slider + 17 (17 when not above 0), one refresh per change")
    func fontSettings() async throws {
        try await withApp { app in
            let fresh = try await app.request("GET", "/v1/profiles/default/font")
            #expect(fresh.text == #"{"profile":"default","sliderValue":0.0,"fontSize":0.0,"effectiveFontSize":17.0,"version":0}"# + "\n")
            let set = try await app.request("PUT", base + "/font", json: #"{"sliderValue": 2.5}"#)
            #expect(set.status == 200)
            #expect(set.text == #"{"profile":"ana","sliderValue":3.0,"fontSize":20.0,"effectiveFontSize":20.0,"version":1,"eventId":1}"# + "\n")
            let negative = try await app.request("PUT", base + "/font", json: #"{"sliderValue": -20}"#)
            #expect(try negative.json()["fontSize"] as? Double == -3)
            #expect(try negative.json()["effectiveFontSize"] as? Double == 17)
            #expect(try await app.request("GET", base + "/preferences/sliderValuekey").json()["value"] as? Double == -20)
            #expect(try await app.request("PUT", base + "/preferences/fontSizekey", json: #"{"value":30}"#).status == 200)
            #expect(try await app.request("GET", base + "/font").json()["effectiveFontSize"] as? Double == 30)
            #expect(try await events(app) == ["refresh", "refresh", "refresh"])
        }
    }

    @Test("refused font changes are 400/422, store nothing and log nothing", arguments: [
        (#"{"sliderValue": 1000.5}"#, 422), (#"{"sliderValue": -1e9}"#, 422), (#"{"sliderValue": "3"}"#, 400),
        (#"{"sliderValue": null}"#, 400), (#"{}"#, 400), (#"{"sliderValue": 1, "fontSize": 18}"#, 400),
        (#"{"sliderValue": 1e999}"#, 400),
    ])
    func refusedFont(body: String, status: Int) async throws {
        try await withApp { app in
            let response = try await app.request("PUT", "/v1/profiles/default/font", json: body)
            #expect(response.status == status, "\(body) -> \(response.text)")
            #expect(try await app.request("GET", "/v1/profiles/default/font").int("version") == 0)
            #expect(try await events(app, "default").isEmpty)
        }
    }

    @Test("A-1/A-2: ETag, If-Match, If-None-Match on preferences, defaults and font")
    func conditionalRequests() async throws {
        try await withApp { app in
            let created = try await app.request("PUT", base + "/preferences/k", headers: [("If-None-Match", "*")], json: #"{"value":1}"#)
            #expect(created.status == 201)
            let etag = try #require(created.header("ETag"))
            #expect(try await app.request("PUT", base + "/preferences/k", headers: [("If-None-Match", "*")], json: #"{"value":2}"#).status == 412)
            #expect(try await app.request("GET", base + "/preferences/k", headers: [("If-None-Match", etag)]).status == 304)
            #expect(try await app.request("PUT", base + "/preferences/k", headers: [("If-Match", "\"999\"")], json: #"{"value":2}"#).status == 412)
            let updated = try await app.request("PUT", base + "/preferences/k", headers: [("If-Match", etag)], json: #"{"value":2}"#)
            #expect(updated.status == 200)
            #expect(try await app.request("DELETE", base + "/preferences/k", headers: [("If-Match", etag)]).status == 412)
            let defaults = try await app.request("PUT", base + "/defaults", headers: [("If-Match", "\"0\"")], json: "{}")
            #expect(defaults.status == 200)
            let defaultsETag = try #require(defaults.header("ETag"))
            #expect(try await app.request("GET", base + "/defaults", headers: [("If-None-Match", defaultsETag)]).status == 304)
            #expect(try await app.request("PUT", base + "/defaults", headers: [("If-Match", "\"0\"")], json: "{}").status == 412)
            let font = try await app.request("GET", base + "/font")
            let fontETag = try #require(font.header("ETag"))
            #expect(try await app.request("PUT", base + "/font", headers: [("If-Match", fontETag)], json: #"{"sliderValue":1}"#).status == 200)
            #expect(try await app.request("PUT", base + "/font", headers: [("If-Match", fontETag)], json: #"{"sliderValue":2}"#).status == 412)
            let list = try await app.request("GET", base + "/preferences")
            #expect(list.header("ETag") == "\"4\"", "four accepted writes, each a version")
            #expect(try await app.request("GET", base + "/preferences", headers: [("If-None-Match", "\"4\"")]).status == 304)
        }
    }

    @Test("limits and bad input are clear 4xx and store nothing")
    func limits() async throws {
        try await withApp { app in
            let key = String(repeating: "k", count: 1_025)
            #expect(try await app.request("PUT", base + "/preferences/\(key)", json: #"{"value":1}"#).problemType()
                    == problem("invalid-preference-key"))
            #expect(try await app.request("GET", base + "/preferences/a%00b").status == 400, "NUL is refused, never truncated")
            #expect(try await app.request("GET", base + "/preferences/a%ZZ").problemType() == problem("malformed-path"))
            #expect(try await app.request("GET", base + "/preferences/%FF").problemType() == problem("malformed-path"), "not UTF-8")
            #expect(try await app.request("PUT", base + "/preferences/n", json: #"{"value":[1,null]}"#).problemType()
                    == problem("invalid-value"), "UserDefaults stores no null, also not nested")
            let big = "\"" + String(repeating: "x", count: 70_000) + "\""
            let tooBig = try await app.request("PUT", base + "/preferences/big", json: "{\"value\":\(big)}")
            #expect(tooBig.status == 422)
            #expect(try tooBig.problemType() == problem("value-too-large"))
            #expect(try await app.request("PUT", base + "/preferences/n", json: #"{"value":null}"#).status == 400)
            #expect(try await app.request("PUT", base + "/preferences/n", json: #"{"val":1}"#).status == 400)
            #expect(try await app.request("GET", base + "/preferences/n?as=date").problemType() == problem("invalid-query"))
            #expect(try await app.request("PUT", base + "/defaults", json: #"{"":1}"#).problemType() == problem("invalid-preference-key"))
            #expect(try await app.request("PUT", base + "/defaults", json: "[1]").problemType() == problem("invalid-body"))
            #expect(try await app.request("GET", base + "/preferences").int("version") == 0, "nothing was written")
        }
    }

    @Test("a profile that reached its key limit gets 409 for new keys", .overSockets("concurrent clients on their own connections and threads"))
    func keyLimit() async throws {
        try await withApp { app in
            let port = app.port
            let path = base
            let statuses = try await TestHTTP.onThreads(1) { _ in
                let connection = try TestConnection(port: port)
                return try (0...1_000).map { index in
                    try connection.request("PUT", path + "/preferences/k\(index)", json: #"{"value":1}"#).status
                }
            }[0]
            #expect(statuses.prefix(1_000).allSatisfy { $0 == 201 })
            #expect(statuses.last == 409)
        }
    }
}
