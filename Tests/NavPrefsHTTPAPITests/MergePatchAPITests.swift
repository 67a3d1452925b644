import Foundation
import HTTPTestClient
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore
import NavPrefsApp
import Testing

/// `PATCH .../preferences` and `PATCH .../defaults` as RFC 7396 means them, over a real socket:
/// each member of the patch is the merge patch of that key's value.
@Suite("JSON Merge Patch through the API (RFC 7396)")
struct MergePatchAPITests {
    /// RFC 7396 Appendix A, numbered as in the RFC: (number, target, patch, result). Each target
    /// is stored under the key `k`, and the patch is sent as `k`'s member. Example 13 is left
    /// out: its target `{"e":null}` holds a null, which UserDefaults cannot store. A `null`
    /// result (example 11) means the key is removed.
    static let appendixA: [(Int, String, String, String)] = [
        (1, #"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (2, #"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
        (3, #"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
        (4, #"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
        (5, #"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (6, #"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
        (7, #"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
        (8, #"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
        (9, #"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
        (10, #"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
        (11, #"{"a":"foo"}"#, "null", "null"),
        (12, #"{"a":"foo"}"#, #""bar""#, #""bar""#),
        (14, "[1,2]", #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
        (15, "{}", #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
    ]

    private static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

    @Test("RFC 7396 Appendix A through PATCH .../preferences: the stored value is the RFC's result", arguments: appendixA)
    func preferences(number: Int, target: String, patch: String, result: String) async throws {
        try await withApp { app in
            let base = "/v1/profiles/rfc\(number)/preferences"
            #expect(try await app.request("PUT", base + "/k", json: "{\"value\":\(target)}").status == 201, "A.\(number)")
            let patched = try await app.request("PATCH", base, headers: [("Content-Type", "application/merge-patch+json")],
                                                body: "{\"k\":\(patch)}")
            #expect(patched.status == 200, "A.\(number): \(patched.text)")
            let read = try await app.request("GET", base + "/k")
            if result == "null" {
                #expect(read.status == 404, "A.\(number): the key is removed")
            } else {
                guard case .object(let body) = try Self.json(read.text) else { Issue.record("A.\(number): \(read.text)"); return }
                #expect(body["value"] == (try Self.json(result)), "A.\(number): \(read.text)")
            }
        }
    }

    @Test("RFC 7396 Appendix A through PATCH .../defaults: the registered default is the RFC's result", arguments: appendixA)
    func defaults(number: Int, target: String, patch: String, result: String) async throws {
        try await withApp { app in
            let path = "/v1/profiles/rfc\(number)/defaults"
            #expect(try await app.request("PUT", path, json: "{\"k\":\(target)}").status == 200, "A.\(number)")
            let patched = try await app.request("PATCH", path, headers: [("Content-Type", "application/merge-patch+json")],
                                                body: "{\"k\":\(patch)}")
            #expect(patched.status == 200, "A.\(number): \(patched.text)")
            guard case .object(let body) = try Self.json(try await app.request("GET", path).text),
                  case .object(let values)? = body["values"]
            else { Issue.record("A.\(number): no values"); return }
            #expect(values["k"] == (result == "null" ? nil : try Self.json(result)), "A.\(number)")
        }
    }

    @Test("One event per changed key, however deep the merge: a nested merge and a plain set log two")
    func oneEventPerKey() async throws {
        try await withApp { app in
            let base = "/v1/profiles/ana/preferences"
            _ = try await app.request("PUT", base + "/theme", json: #"{"value":{"colors":{"bg":"white","fg":"black"},"size":2}}"#)
            let patched = try await app.request("PATCH", base, json: #"{"theme":{"colors":{"bg":"black","fg":null}},"n":1}"#)
            #expect(patched.status == 200)
            let body = try patched.json()
            #expect(body["changed"] as? [String] == ["theme", "n"])
            #expect((body["eventIds"] as? [Any])?.count == 2)
            let theme = try await app.request("GET", base + "/theme")
            #expect(theme.text.contains(#""value":{"colors":{"bg":"black"},"size":2}"#), "\(theme.text)")
            let events = try await app.app.store.events(of: try ProfileName("ana"), after: 0, limit: 100)
            #expect(events.count == 3, "the PUT, then one per key of the patch")
        }
    }

    @Test("A null the merge would store (inside an array, which replaces whole) is refused 422, as today")
    func nullInArrayRefused() async throws {
        try await withApp { app in
            let response = try await app.request("PATCH", "/v1/profiles/ana/preferences", json: #"{"k":{"a":[null]}}"#)
            #expect(response.status == 422)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(try await app.request("GET", "/v1/profiles/ana/preferences/k").status == 404, "nothing stored")
        }
    }

    @Test("A merge that grows a value past the 64 KiB limit is refused 422 value-too-large and changes nothing")
    func mergedSizeChecked() async throws {
        try await withApp { app in
            let base = "/v1/profiles/ana/preferences"
            let half = String(repeating: "x", count: 40_000)
            #expect(try await app.request("PATCH", base, json: "{\"k\":{\"a\":\"\(half)\"}}").status == 200)
            let grown = try await app.request("PATCH", base, json: "{\"k\":{\"b\":\"\(half)\"}}")
            #expect(grown.status == 422, "\(grown.text.prefix(200))")
            #expect(grown.text.contains("value-too-large"))
            let read = try await app.request("GET", base + "/k")
            #expect(!read.text.contains("\"b\""), "the stored value is the one before")
        }
    }

    @Test("A nested merge targets the value readers see: a registered default merges when nothing is stored")
    func mergesIntoDefault() async throws {
        try await withApp { app in
            let base = "/v1/profiles/ana"
            _ = try await app.request("PUT", base + "/defaults", json: #"{"k":{"a":1}}"#)
            #expect(try await app.request("PATCH", base + "/preferences", json: #"{"k":{"b":2}}"#).status == 200)
            let read = try await app.request("GET", base + "/preferences/k")
            #expect(read.text.contains(#""value":{"a":1,"b":2},"source":"stored""#), "\(read.text)")
        }
    }

    @Test("The answer and the events carry what changed: a set value, a patch with the version it merged into, a removal")
    func answerCarriesChanges() async throws {
        try await withApp { app in
            let base = "/v1/profiles/ana/preferences"
            _ = try await app.request("PUT", base + "/theme", json: #"{"value":{"colors":{"bg":"white"},"size":2}}"#)
            _ = try await app.request("PUT", base + "/old", json: #"{"value":1}"#)
            let patched = try await app.request("PATCH", base, json: #"{"theme":{"colors":{"bg":"black"}},"n":{"a":null,"b":1},"old":null}"#)
            #expect(patched.status == 200)
            #expect(patched.text == #"{"profile":"ana","changes":[{"key":"theme","patch":{"colors":{"bg":"black"}},"from":1,"version":3},"#
                + #"{"key":"n","value":{"b":1},"version":4},{"key":"old","removed":true,"source":"absent","version":5}],"#
                + #""version":5,"eventId":5,"eventIds":[3,4,5],"changed":["theme","n","old"]}"# + "\n", "\(patched.text)")
            let events = try await app.app.store.events(of: try ProfileName("ana"), after: 2, limit: 100)
            #expect(events.map(\.data) == [
                #"{"profile":"ana","key":"theme","patch":{"colors":{"bg":"black"}},"from":1,"version":3,"author":{"token":"open"}}"#,
                #"{"profile":"ana","key":"n","value":{"b":1},"version":4,"author":{"token":"open"}}"#,
                #"{"profile":"ana","key":"old","removed":true,"value":null,"version":5,"author":{"token":"open"}}"#,
            ])
        }
    }

    @Test("A patch of a few bytes on 100 values of 60 KB answers and logs a few KB, not the 6 MB it merged into (issue 32)")
    func smallPatchOfLargeProfile() async throws {
        try await withApp { app in
            let base = "/v1/profiles/amp/preferences"
            let big = String(repeating: "v", count: 60_000)
            var patch: [String] = []
            for index in 0..<100 {
                #expect(try await app.request("PUT", base + "/k\(index)", json: #"{"value":{"text":"\#(big)"}}"#).status == 201)
                patch.append(#""k\#(index)":{"n":\#(index)}"#)
            }
            let after = try await app.app.store.eventLogBounds(of: try ProfileName("amp")).latest
            let body = "{" + patch.joined(separator: ",") + "}"
            let patched = try await app.request("PATCH", base, headers: [("Content-Type", "application/merge-patch+json")], body: body)
            #expect(patched.status == 200)
            #expect(patched.body.count < 8 * body.utf8.count, "answer of \(patched.body.count) bytes for a patch of \(body.utf8.count)")
            let events = try await app.app.store.events(of: try ProfileName("amp"), after: after, limit: 1000)
            #expect(events.count == 100)
            let logged = events.reduce(0) { $0 + $1.data.utf8.count }
            #expect(logged < 8 * body.utf8.count, "logged \(logged) bytes for a patch of \(body.utf8.count)")
            let read = try await app.request("GET", base + "/k7")
            #expect(read.text.contains(#""n":7"#) && read.body.count > 60_000, "the value is merged whole")
        }
    }
}
