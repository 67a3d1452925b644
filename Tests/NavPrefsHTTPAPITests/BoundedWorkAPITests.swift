import Foundation
import HTTPTestClient
import NavPrefsCore
import NavPrefsJSON
import NavPrefsApp
import NavPrefsHTTPAPI
import MicroHTTPServer
import Testing

/// Issue 31: what one request may cost the server. The timing of it (a wide body answered within
/// a second while `/healthz` keeps its p99) is measured by the hostile suite's `loop` part; these
/// tests check the answers.
@Suite("Bounded work per request: wide bodies, large values")
struct BoundedWorkAPITests {
    static func wideObject(_ count: Int) -> String {
        "{" + (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
    }

    @Test("a body with an object of more than 16,384 members is 400 invalid-body naming the limit, at any depth")
    func memberLimit() async throws {
        try await withApp { app in
            let wide = Self.wideObject(60_000)
            for (method, path, body) in [
                ("PATCH", "/v1/profiles/w/preferences", wide),
                ("PATCH", "/v1/profiles/w/defaults", wide),
                ("PUT", "/v1/profiles/w/defaults", wide),
                ("PATCH", "/v1/profiles/w/preferences", #"{"nested":"# + Self.wideObject(JSONValue.maxObjectMembers + 1) + "}"),
            ] {
                let answer = try await app.request(method, path, json: body)
                #expect(answer.status == 400, "\(method) \(path): \(answer.text.prefix(200))")
                #expect(try answer.problemType() == problem("invalid-body"), "\(method) \(path)")
                #expect(try answer.json()["limit"] as? Int == JSONValue.maxObjectMembers, "\(method) \(path)")
            }
            #expect(try await app.request("GET", "/v1/profiles/w/state").json()["lastEventId"] as? Int == 0, "nothing was written")
        }
    }

    @Test("a merge patch of 30 values with 1,800 members each is applied whole, member order kept")
    func wideValues() async throws {
        try await withApp { app in
            let value = Self.wideObject(1_800)
            let patch = "{" + (0..<30).map { "\"v\($0)\":\(value)" }.joined(separator: ",") + "}"
            let first = try await app.request("PATCH", "/v1/profiles/wide/preferences", json: patch)
            #expect(first.status == 200, "\(first.text.prefix(200))")
            // Half the members removed, half replaced, new ones after: one pass each.
            let change = "{" + (0..<1_800).map { $0 % 2 == 0 ? "\"k\($0)\":null" : "\"k\($0)\":\"x\"" }.joined(separator: ",")
                + ",\"new\":true}"
            let second = try await app.request("PATCH", "/v1/profiles/wide/preferences", json: "{\"v7\":\(change)}")
            #expect(second.status == 200, "\(second.text.prefix(200))")
            let read = try await app.request("GET", "/v1/profiles/wide/preferences/v7")
            let merged = try read.json()["value"] as? [String: Any] ?? [:]
            #expect(merged.count == 901)
            #expect(merged["k1"] as? String == "x" && merged["k0"] == nil && merged["new"] as? Bool == true)
            let text = read.text
            if let k1 = text.range(of: "\"k1\""), let k3 = text.range(of: "\"k3\""), let new = text.range(of: "\"new\"") {
                #expect(k1.lowerBound < k3.lowerBound && k3.lowerBound < new.lowerBound, "members keep their places")
            } else {
                Issue.record("members missing: \(text.prefix(200))")
            }
        }
    }
}

@Suite("Bounded stream buffers: an event too large for a stream is a reset, and the stream goes on",
       .overSockets("Server-Sent Events over TCP: what a stream holds unsent"))
struct StreamOverflowAPITests {
    @Test("an event larger than a stream's buffer reaches a fast reader as a reset (tooFarBehind, its id), then the stream goes on")
    func largeEventIsAReset() async throws {
        try await withApp({ $0.sseStreamBufferBytes = 32 << 10 }) { app in
            let stream = try await SSEClient.open(port: app.port, path: "/v1/profiles/big/events")
            _ = try await stream.next()  // retry
            _ = try await stream.next()  // position
            let value = String(repeating: "v", count: 60_000)
            #expect(try await app.request("PUT", "/v1/profiles/big/preferences/large", json: #"{"value":"\#(value)"}"#).status == 201)
            #expect(try await app.request("PUT", "/v1/profiles/big/preferences/small", json: #"{"value":1}"#).status == 201)
            let reset = try #require(try await stream.next())
            #expect(reset.event == "reset" && reset.id == "1", "\(reset)")
            let data = try reset.json()
            #expect(data["reason"] as? String == "tooFarBehind" && data["latest"] as? Int == 1 && data["profile"] as? String == "big")
            let next = try #require(try await stream.next())
            #expect(next.event == "preference" && next.id == "2", "the stream goes on: \(next)")
            let metrics = String(decoding: try await app.request("GET", "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("navprefs_sse_overflow_resets_total 1"), "\(metrics)")
            #expect(metrics.contains("navprefs_sse_stream_buffer_limit_bytes 32768"))
            #expect(metrics.contains("navprefs_sse_buffer_total_limit_bytes 67108864"))
        }
    }
}

@Suite("Reads too large for the event loop", .overSockets("which thread rendered and answered: NavPrefsAPI.answersRenderedElsewhere, HTTPServer.answersMadeOffTheLoop"))
struct LargeReadAPITests {
    @Test("a read past --loop-read-bytes is read and rendered by a reader and answered on the loop; a conditional GET or a HEAD of it from its version alone")
    func largeReadsLeaveTheLoop() async throws {
        try await withApp({ $0.loopReadBytes = 1_024 }) { app in
            let value = String(repeating: "v", count: 2_000)
            for index in 0..<3 {
                #expect(try await app.request("PUT", "/v1/profiles/large/preferences/k\(index)", json: #"{"value":"\#(value)"}"#).status == 201)
            }
            #expect(try await app.request("PUT", "/v1/profiles/large/defaults", json: #"{"d":"\#(value)"}"#).status == 200)
            for path in ["/v1/profiles/large/state", "/v1/profiles/large/preferences", "/v1/profiles/large/defaults"] {
                let (before, renderedBefore) = (app.app.server.answersMadeOffTheLoop, app.app.api.answersRenderedElsewhere)
                let whole = try await app.request("GET", path)
                #expect(whole.status == 200 && whole.body.count > 2_000, "\(path)")
                #expect(app.app.api.answersRenderedElsewhere == renderedBefore + 1, "\(path): read and rendered by a reader")
                #expect(app.app.server.answersMadeOffTheLoop == before, "\(path): finished and answered on the loop")
                let tag = try #require(whole.header("ETag"))
                let notModified = try await app.request("GET", path, headers: [("If-None-Match", tag)])
                #expect(notModified.status == 304 && notModified.header("ETag") == tag, "\(path)")
                #expect(notModified.header("Content-Length") == nil, "\(path): the length would take the read")
                let head = try await app.request("HEAD", path)
                #expect(head.status == 200 && head.header("ETag") == tag && head.header("Content-Type") == "application/json", "\(path)")
                #expect(head.body.isEmpty && head.header("Content-Length") == nil, "\(path)")
                #expect(app.app.api.answersRenderedElsewhere == renderedBefore + 1, "\(path): the 304 and the HEAD on the loop, from the version")
                #expect(app.app.server.answersMadeOffTheLoop == before)
                let changed = try await app.request("GET", path, headers: [("If-None-Match", "\"9999\"")])
                #expect(changed.status == 200 && changed.body == whole.body, "\(path): another tag gets the data")
            }
            // A small profile is still read whole on the loop: a 304 and a HEAD with their length.
            _ = try await app.request("POST", "/v1/profiles/small/counter/increment")
            let small = try await app.request("GET", "/v1/profiles/small/state")
            let head = try await app.request("HEAD", "/v1/profiles/small/state")
            #expect(head.header("Content-Length") == String(small.body.count))
        }
    }

    @Test("a body past --loop-body-bytes is handled off the event loop, and answered as any other")
    func largeBodies() async throws {
        try await withApp({ $0.loopBodyBytes = 1_024 }) { app in
            let patch = "{" + (0..<200).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
            let answer = try await app.request("PATCH", "/v1/profiles/lane/preferences", json: patch)
            #expect(answer.status == 200, "\(answer.text.prefix(200))")
            #expect(try await app.request("PATCH", "/v1/profiles/lane/preferences", json: #"{"small":1}"#).status == 200)
            let metrics = String(decoding: try await app.request("GET", "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("navprefs_large_bodies_total 1\n"), "only the large body")
            #expect(metrics.contains("navprefs_loop_body_limit_bytes 1024"))
            #expect(metrics.contains("navprefs_http_large_answer_limit_bytes 268435456"))
        }
    }
}
