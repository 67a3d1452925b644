import Foundation
import HTTPTestClient
import MicroHTTPServer
import NavPrefsCore
import NavPrefsHTTPAPI
import NavPrefsStore
import Testing
import NavPrefsSQLite
import NavPrefsApp

/// Server-Sent Events over a real socket: semantics E-1..E-8, N-1, N-2, F-6.
@Suite("Event stream API", .overSockets("Server-Sent Events over TCP: chunked framing, heartbeats, reconnects, clients that leave, per-address caps, CPU of the event loop"))
struct EventStreamAPITests {
    let events = "/v1/profiles/ana/events"
    let counter = "/v1/profiles/ana/counter"

    /// - Parameter heartbeats: whether its `next()` returns heartbeats (``SSEClient/keepsHeartbeats``).
    func open(_ app: TestApp, _ path: String, headers: [(String, String)] = [], source: String? = nil,
              heartbeats: Bool = false) async throws -> SSEClient {
        let stream = try await SSEClient.open(port: app.port, path: path, headers: headers, sourceAddress: source)
        stream.keepsHeartbeats = heartbeats
        return stream
    }

    /// The opening messages: the retry hint, then the position (or a reset).
    func opening(_ stream: SSEClient) async throws -> (retry: SSEMessage, next: SSEMessage) {
        let retry = try #require(try await stream.next())
        let next = try #require(try await stream.next())
        return (retry, next)
    }

    @Test("E-1/E-6: 200 text/event-stream, no-cache, no proxy buffering, a retry hint, and the position to resume from")
    func headersAndOpening() async throws {
        try await withApp { app in
            _ = try await app.request("POST", counter + "/increment")
            let stream = try await open(app, events)
            #expect(stream.head.status == 200)
            #expect(stream.head.header("Content-Type") == "text/event-stream")
            #expect(stream.head.header("Cache-Control") == "no-cache")
            #expect(stream.head.header("X-Accel-Buffering") == "no")
            let (retry, position) = try await opening(stream)
            #expect(retry.retry == "2000")
            #expect(position.id == "1", "a first connection starts from now: after the newest event")
            #expect(position.data.isEmpty)
        }
    }

    @Test("live events arrive in commit order with id, type and data; one refresh per font change (F-6)")
    func liveEvents() async throws {
        try await withApp { app in
            let stream = try await open(app, events)
            _ = try await opening(stream)
            _ = try await app.request("POST", counter + "/increment")
            _ = try await app.request("PUT", "/v1/profiles/ana/font", json: #"{"sliderValue": 2.5}"#)
            _ = try await app.request("PUT", "/v1/profiles/ana/preferences/theme", json: #"{"value": "dark"}"#)
            _ = try await app.request("PUT", "/v1/profiles/ana/font", json: #"{"sliderValue": 1e9}"#)  // refused: no event
            _ = try await app.request("POST", counter + "/decrement")
            let received = try await stream.messages { $0.id == "4" }
            #expect(received.map(\.id) == ["1", "2", "3", "4"])
            #expect(received.map(\.event) == ["counter", "refresh", "preference", "counter"])
            let refresh = try received[1].json()
            #expect(refresh["name"] as? String == "doRefreshNotification")
            #expect(refresh["fontSize"] as? Double == 20)
            #expect(try received[3].json()["value"] as? Int == 0)
        }
    }

    @Test("E-2: a reconnect with Last-Event-ID replays what it missed, then continues live: no gap, no duplicate")
    func replayThenLive() async throws {
        try await withApp { app in
            for _ in 0..<5 { _ = try await app.request("POST", counter + "/increment") }
            let stream = try await open(app, events, headers: [("Last-Event-ID", "2")])
            let retry = try #require(try await stream.next())
            #expect(retry.retry != nil)
            let replayed = try await stream.messages { $0.id == "5" }
            #expect(replayed.map(\.id) == ["3", "4", "5"])
            _ = try await app.request("POST", counter + "/increment")
            #expect(try await stream.next()?.id == "6")
        }
    }

    @Test("E-2: the Last-Event-ID header wins over the last_event_id query")
    func headerWins() async throws {
        try await withApp { app in
            for _ in 0..<3 { _ = try await app.request("POST", counter + "/increment") }
            let stream = try await open(app, events + "?last_event_id=0", headers: [("Last-Event-ID", "2")])
            _ = try await stream.next()
            #expect(try await stream.next()?.id == "3")
            let byQuery = try await open(app, events + "?last_event_id=1")
            _ = try await byQuery.next()
            #expect(try await byQuery.next()?.id == "2")
        }
    }

    @Test("E-2: every change written while subscribers reconnect is delivered exactly once")
    func noGapUnderConcurrentWrites() async throws {
        try await withApp { app in
            let port = app.port
            let path = counter + "/increment"
            let writers = TestHTTP.startThreads(1) { _ in
                let connection = try TestConnection(port: port)
                for _ in 0..<60 { _ = try connection.request("POST", path) }
            }
            var seen: [String] = []
            var last = "0"
            for _ in 0..<6 {  // reconnect six times while the writes go on
                let stream = try await open(app, events, headers: [("Last-Event-ID", last)])
                _ = try await stream.next()  // retry
                for _ in 0..<10 {
                    guard let message = try await stream.next(), let id = message.id, message.event == "counter" else { break }
                    seen.append(id)
                    last = id
                }
            }
            try await writers[0].value
            let rest = try await open(app, events, headers: [("Last-Event-ID", last)])
            _ = try await rest.next()
            while seen.last != "60", let message = try await rest.next(), let id = message.id {
                seen.append(id)
            }
            #expect(seen == (1...60).map(String.init))
        }
    }

    @Test("E-3: an id the log no longer keeps, or never issued, gets a reset event, then the live stream")
    func resetOnStaleOrUnknownIDs() async throws {
        try await withApp({ $0.eventRetentionCount = 2 }) { app in
            for _ in 0..<5 { _ = try await app.request("POST", counter + "/increment") }
            _ = try await app.app.store.pruneEventLogIfSQLite()
            for (given, reason) in [("1", "expired"), ("99", "unknown"), ("xyz", "unknown")] {
                let stream = try await open(app, events, headers: [("Last-Event-ID", given)])
                _ = try await stream.next()
                let reset = try #require(try await stream.next())
                #expect(reset.event == "reset")
                #expect(reset.id == "5", "resume after the newest event")
                let data = try reset.json()
                #expect(data["reason"] as? String == reason)
                #expect(data["earliest"] as? Int == 4)
                #expect(data["latest"] as? Int == 5)
            }
            let kept = try await open(app, events, headers: [("Last-Event-ID", "3")])
            _ = try await kept.next()
            #expect(try await kept.next()?.id == "4", "3 is still continuable: 4 is kept")
        }
    }

    @Test("N-2: ?types= filters, control events always pass; unknown types are 400")
    func filters() async throws {
        try await withApp { app in
            let stream = try await open(app, events + "?types=refresh")
            _ = try await opening(stream)
            _ = try await app.request("POST", counter + "/increment")
            _ = try await app.request("PUT", "/v1/profiles/ana/preferences/k", json: #"{"value": 1}"#)
            _ = try await app.request("PUT", "/v1/profiles/ana/font", json: #"{"sliderValue": 3}"#)
            let next = try #require(try await stream.next())
            #expect(next.event == "refresh")
            #expect(next.id == "3")
            let bad = try await app.request("GET", events + "?types=refresh,bogus")
            #expect(bad.status == 400)
            #expect(try bad.problemType() == problem("invalid-query"))
        }
    }

    @Test("E-6: a quiet stream hears a heartbeat at least once per interval, again and again")
    func heartbeatsKeepTheirInterval() async throws {
        try await withApp({ $0.sseHeartbeatSeconds = 1 }) { app in
            let stream = try await open(app, events, heartbeats: true)
            _ = try await opening(stream)
            var last = ContinuousClock.now
            for _ in 0..<3 {
                let beat = try #require(try await stream.next())
                #expect(beat.comments == ["heartbeat"] && beat.id == nil && beat.event == nil)
                let now = ContinuousClock.now
                // At most the interval, plus scheduling slack on a loaded machine.
                #expect(now - last < .milliseconds(1_500), "\(now - last) between heartbeats")
                last = now
            }
        }
    }

    @Test("issue 16: a stream that carries events gets no heartbeat; only quiet ones do")
    func busyStreamsSkipHeartbeats() async throws {
        try await withApp({ $0.sseHeartbeatSeconds = 4 }) { app in
            let beforeOpening = ContinuousClock.now
            let stream = try await open(app, events, heartbeats: true)
            _ = try await opening(stream)
            // An event every 250 ms for 3 s: the stream is never quiet for 4 s less one round
            // (3.75 s), so no heartbeat is due. The writer notes when each request went out and
            // when its answer came: the event was published in between, so the server's longest
            // quiet spell is at most the longest span from one request's start to the next one's
            // answer. Only a writer stalled that long (a loaded machine) excuses a heartbeat.
            let writer = Task {
                var spans: [(start: ContinuousClock.Instant, end: ContinuousClock.Instant)] = []
                for _ in 0..<12 {
                    let start = ContinuousClock.now
                    _ = try await app.request("POST", counter + "/increment")
                    spans.append((start, ContinuousClock.now))
                    try await Task.sleep(for: .milliseconds(250))
                }
                return spans
            }
            var received: [SSEMessage] = []
            while received.filter({ $0.event == "counter" }).count < 12, let message = try await stream.next() {
                received.append(message)
            }
            let spans = try await writer.value
            let starts = [beforeOpening] + spans.map(\.start)  // the stream opened before the first request
            let longestPossibleQuiet = zip(starts, spans).map { $1.end - $0 }.max() ?? .zero
            let heartbeats = received.filter { !$0.comments.isEmpty }.count
            #expect(heartbeats == 0 || longestPossibleQuiet >= .milliseconds(3_700),
                    "\(heartbeats) heartbeat(s) on a stream never quiet for more than \(longestPossibleQuiet)")
            #expect(received.filter { $0.event == "counter" }.count == 12)
            // Quiet again: the heartbeat comes back.
            let beat = try #require(try await stream.next())
            #expect(beat.comments == ["heartbeat"])
        }
    }

    @Test("issue 16: streams opened together get their heartbeats spread over the interval, not all in one round")
    func heartbeatsSpread() async throws {
        try await withApp({ $0.sseHeartbeatSeconds = 2 }) { app in
            let streams = try await (0..<32).asyncMap { _ in try await open(app, events, heartbeats: true) }
            for stream in streams { _ = try await opening(stream) }
            let opened = ContinuousClock.now
            // Each stream read on a thread of its own, so an arrival is timed when it happens.
            let arrivals = try await withThrowingTaskGroup(of: Duration.self) { group in
                for stream in streams {
                    group.addTask {
                        let beat = try #require(try await stream.next())
                        #expect(beat.comments == ["heartbeat"])
                        return ContinuousClock.now - opened
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let sorted = arrivals.sorted()
            // 16 rounds of 125 ms: the first heartbeats span most of the interval.
            #expect(sorted.last! - sorted.first! >= .milliseconds(1_200), "first heartbeats from \(sorted.first!) to \(sorted.last!)")
            #expect(sorted.last! < .milliseconds(2_500), "and none later than the interval (plus slack)")
        }
    }

    @Test("E-8: an idle stream costs the event loop no CPU")
    func idleCostsNothing() async throws {
        try await withApp { app in
            let streams = try await (0..<20).asyncMap { _ in try await open(app, events) }
            for stream in streams { _ = try await opening(stream) }
            let thread = try #require(app.app.server.eventLoopThreadID)
            let before = try cpuTicks(ofThread: thread)
            try await Task.sleep(for: .seconds(1))
            let used = try cpuTicks(ofThread: thread) - before
            #expect(used <= 2, "the event loop used \(used) ticks with 20 idle streams")
        }
    }

    @Test("a client that goes away is dropped within two heartbeats")
    func deadClientsReaped() async throws {
        try await withApp({ $0.sseHeartbeatSeconds = 1 }) { app in
            do {
                let stream = try await open(app, events)
                _ = try await opening(stream)
                #expect(app.app.api.subscriberCount == 1)
            }  // closed here
            var count = 1
            for _ in 0..<40 where count > 0 {
                try await Task.sleep(for: .milliseconds(100))
                count = app.app.api.subscriberCount
            }
            #expect(count == 0)
        }
    }

    @Test("caps: streams per client address are 429, streams in all 503, both with Retry-After")
    func caps() async throws {
        try await withApp({ $0.sseMaxSubscribersPerIP = 2; $0.sseMaxSubscribers = 3 }) { app in
            let first = try await open(app, events)
            let second = try await open(app, events)
            #expect(first.head.status == 200 && second.head.status == 200)
            let third = try await open(app, events)
            #expect(third.head.status == 429)
            #expect(third.head.header("Retry-After") != nil)
            #expect(third.head.header("Content-Type") == "application/problem+json")
            let other = try await open(app, events, source: "127.0.0.2")
            #expect(other.head.status == 200)
            let fourth = try await open(app, events, source: "127.0.0.3")
            #expect(fourth.head.status == 503)
            #expect(fourth.head.header("Retry-After") != nil)
        }
    }

    @Test("CORS: an allowed origin may read the stream and preflight writes; others get no CORS headers")
    func cors() async throws {
        try await withApp({ $0.corsOrigins = CORSPolicy(parsing: "http://page.example, http://other.example") }) { app in
            let stream = try await open(app, events, headers: [("Origin", "http://page.example")])
            #expect(stream.head.header("Access-Control-Allow-Origin") == "http://page.example")
            #expect(stream.head.header("Vary") == "Origin")
            let foreign = try await app.request("GET", counter.replacingOccurrences(of: "ana", with: "default"),
                                                headers: [("Origin", "http://evil.example")])
            #expect(foreign.header("Access-Control-Allow-Origin") == nil)
            // An action's resource: its one method stays what it is when a resource gains routes.
            let preflight = try await app.request("OPTIONS", "/v1/profiles/ana/counter/increment", headers: [
                ("Origin", "http://other.example"), ("Access-Control-Request-Method", "POST"),
                ("Access-Control-Request-Headers", "content-type, if-match"),
            ])
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == "http://other.example")
            #expect(preflight.header("Access-Control-Allow-Methods") == "POST")
            #expect(preflight.header("Access-Control-Allow-Headers")?.contains("If-Match") == true)
            #expect(try await app.request("OPTIONS", "/v1/profiles/ana/counter/increment").status == 405, "not a preflight")
        }
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

extension Store {
    /// Prunes the log now (the SQLite store otherwise does it every minute).
    func pruneEventLogIfSQLite() async throws -> Int {
        guard let sqlite = self as? SQLiteStore else { return 0 }
        return try await sqlite.pruneEventLog()
    }
}

@Suite("Event streams at shutdown", .overSockets("the listener's own shutdown ends the streams (a service of its own)"))
struct EventStreamShutdownTests {
    @Test("shutdown ends every stream with a shutdown event, then the chunked end")
    func shutdownEndsStreams() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navprefs-sse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = Configuration()
        configuration.port = 0
        configuration.database = .sqlite(path: directory.appendingPathComponent("db.sqlite").path)
        configuration.shutdownGraceSeconds = 2
        let app = NavPrefsApp(configuration, logger: Logger(level: .error))
        try await app.start()
        async let serving: Void = app.run()
        let streams = try await (0..<5).asyncMap { _ in
            try await SSEClient.open(port: app.port, path: "/v1/profiles/default/events", headers: [("Last-Event-ID", "0")])
        }
        for stream in streams { _ = try await stream.next() }  // retry hint: the stream is live
        let started = ContinuousClock.now
        await app.shutdown()
        await serving
        #expect(ContinuousClock.now - started < .seconds(2))
        for stream in streams {
            let rest = try await stream.messages { $0.event == "shutdown" }
            let last = try #require(rest.last)
            #expect(last.event == "shutdown")
            #expect(last.id == nil, "the final event does not move the client's position")
            #expect(try await stream.next() == nil, "then the chunked end")
        }
    }
}
