import Foundation
import HTTPTestClient
import Testing

/// The event log outlives the process: a client reconnecting to a restarted server with its
/// Last-Event-ID gets everything it missed, with ids that carry on across the restart.
@Suite("Event replay across a restart")
struct EventReplayAcrossRestartTests {
    @Test("events logged before a restart are replayed after it; ids continue")
    func replayAcrossRestart() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("replay.sqlite")
        var (service, port) = try await ServiceProcess.start(database: database)
        let stream = try await SSEClient.open(port: port, path: "/v1/profiles/mobile/events?last_event_id=0")
        _ = try await stream.next()
        for _ in 0..<3 { _ = try await TestHTTP.request(port: port, "POST", "/v1/profiles/mobile/counter/increment") }
        let seen = try await stream.messages { $0.id == "3" }.compactMap(\.id)
        #expect(seen == ["1", "2", "3"])
        // Two more while the client is away, then the server restarts.
        for _ in 0..<2 { _ = try await TestHTTP.request(port: port, "POST", "/v1/profiles/mobile/counter/increment") }
        service.send(SIGTERM)
        #expect(await service.waitForExit() == 0)
        let ended = try await stream.messages { $0.event == "shutdown" }
        #expect(ended.contains { $0.id == "5" }, "live events up to the shutdown")
        (service, port) = try await ServiceProcess.start(database: database)
        let resumed = try await SSEClient.open(port: port, path: "/v1/profiles/mobile/events", headers: [("Last-Event-ID", "3")])
        _ = try await resumed.next()
        _ = try await TestHTTP.request(port: port, "POST", "/v1/profiles/mobile/counter/increment")
        let after = try await resumed.messages { $0.id == "6" }.compactMap(\.id)
        #expect(after == ["4", "5", "6"])
        service.send(SIGTERM)
        #expect(await service.waitForExit() == 0)
    }
}
