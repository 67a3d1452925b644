import Foundation
import HTTPTestClient
import NavPrefsApp
import Testing

/// The event log as JSON pages (`Accept: application/json`), for clients that cannot hold a
/// stream open.
@Suite("Event pages as JSON")
struct EventPageAPITests {
    static let json = [("Accept", "application/json")]

    @Test("the events after an id, at most limit, with id, type, data and timestamp; lastEventId and hasMore say where to go on")
    func pages() async throws {
        try await withApp { app in
            for _ in 0..<3 { _ = try await app.request("POST", "/v1/profiles/ana/counter/increment") }
            _ = try await app.request("PUT", "/v1/profiles/ana/font", json: #"{"sliderValue":1}"#)
            let first = try await app.request("GET", "/v1/profiles/ana/events?after=0&limit=2", headers: Self.json)
            #expect(first.status == 200)
            #expect(first.header("Content-Type") == "application/json")
            #expect(first.integer(at: "/events/0/id") == 1)
            #expect(first.string(at: "/events/0/type") == "counter")
            #expect(first.integer(at: "/events/0/data/value") == 1)
            #expect(first.string(at: "/events/0/timestamp")?.hasSuffix("Z") == true)
            #expect(first.integer(at: "/events/1/id") == 2)
            #expect(first.has("/events/2") == false)
            #expect(first.integer(at: "/lastEventId") == 2)
            #expect(first.integer(at: "/latest") == 4)
            #expect(first.bool(at: "/hasMore") == true)
            #expect(first.isNull(at: "/reset"))
            let rest = try await app.request("GET", "/v1/profiles/ana/events?after=2&types=refresh", headers: Self.json)
            #expect(rest.integer(at: "/events/0/id") == 4, "the filter leaves counter 3 out")
            #expect(rest.string(at: "/events/0/data/name") == "doRefreshNotification")
            #expect(rest.integer(at: "/lastEventId") == 4)
            #expect(rest.bool(at: "/hasMore") == false)
            let none = try await app.request("GET", "/v1/profiles/ana/events?after=4", headers: Self.json)
            #expect(none.text.contains(#""events":[]"#))
            #expect(none.integer(at: "/lastEventId") == 4)
        }
    }

    @Test("an id the log no longer holds, or never issued, answers reset and no events")
    func reset() async throws {
        try await withApp({ $0.eventRetentionCount = 2 }) { app in
            for _ in 0..<5 { _ = try await app.request("POST", "/v1/profiles/ana/counter/increment") }
            _ = try await app.app.store.pruneEventLogIfSQLite()
            let expired = try await app.request("GET", "/v1/profiles/ana/events?after=1", headers: Self.json)
            #expect(expired.string(at: "/reset/reason") == "expired")
            #expect(expired.text.contains(#""events":[]"#))
            #expect(expired.integer(at: "/lastEventId") == 5)
            let unknown = try await app.request("GET", "/v1/profiles/ana/events?after=99", headers: Self.json)
            #expect(unknown.string(at: "/reset/reason") == "unknown")
        }
    }

    @Test("after and limit are checked (400) however the events are asked for; a stream stays a stream", .overSockets("a stream's head read over TCP"))
    func validation() async throws {
        try await withApp { app in
            for query in ["after=-1", "after=x", "limit=0", "limit=1001"] {
                for headers in [Self.json, []] {
                    let response = try await app.request("GET", "/v1/profiles/ana/events?\(query)", headers: headers)
                    #expect(response.status == 400, "\(query) \(headers)")
                    #expect(try response.problemType() == problem("invalid-query"))
                }
            }
            let connection = try app.connection()
            try await connection.send("GET", "/v1/profiles/ana/events", headers: [("Accept", "application/json;q=0.5, text/event-stream")])
            let head = try await connection.readHead()
            #expect(head.header("Content-Type") == "text/event-stream")
        }
    }
}
