import Foundation
import HTTPTestClient
import NavPrefsClient
import Testing

extension ClientSuites {
    /// The stream, done right: across a server restart, a dropped connection and a network that
    /// went silent, every event arrives once, in order; a position the log cannot continue from
    /// reloads the state.
    @Suite("The event stream")
    struct StreamResilienceTests {
        /// Increments the counter `count` times straight on the server.
        static func increments(_ rig: ClientRig, _ count: Int, port: Int? = nil) async throws {
            for _ in 0..<count {
                let response = try await TestHTTP.request(port: port ?? rig.server.port, "POST", "/v1/profiles/stream/counter/increment")
                try #require(response.status == 200, "\(response.text)")
            }
        }

        @Test("a server restart: the client reconnects and gets what was written meanwhile, no gap, no duplicate")
        func acrossRestart() async throws {
            let rig = try await ClientRig()
            let profile = try rig.profile("stream")
            let log = EventLog(profile)
            profile.start()
            #expect(await eventually { profile.isConnected })
            try await Self.increments(rig, 3)
            #expect(await eventually { log.ids == [1, 2, 3] })

            await rig.server.stop()
            #expect(await eventually { log.all.contains { $0.type == "shutdown" } })
            let restarted = try await ServerProcess(database: rig.database, logPath: rig.scratch.path("restarted.log"), extra: ClientRig.serverFlags)
            rig.proxy.route(to: [restarted.port])
            try await Self.increments(rig, 3, port: restarted.port)  // before the client is back, most likely
            #expect(await eventually { log.ids.count >= 6 })
            try await Self.increments(rig, 1, port: restarted.port)
            #expect(await eventually { log.ids.count == 7 })
            #expect(log.ids == [1, 2, 3, 4, 5, 6, 7])
            #expect(profile.counter.value == 7)
            #expect(profile.lastEventID == 7)
            await profile.close(erasingMirror: true)
            rig.proxy.close()
            await restarted.stop()
            rig.scratch.remove()
        }

        @Test("a dropped connection: the client reconnects with Last-Event-ID and gets every event once")
        func acrossDrop() async throws {
            try await withRig { rig in
                let profile = try rig.profile("stream")
                let log = EventLog(profile)
                profile.start()
                #expect(await eventually { profile.isConnected })
                for round in 0..<3 {
                    try await Self.increments(rig, 2)
                    rig.proxy.cutAll()
                    try await Self.increments(rig, 2)
                    #expect(await eventually { log.ids.count == 4 * (round + 1) }, "round \(round): \(log.ids)")
                }
                #expect(log.ids == Array(1...12))
                #expect(profile.counter.value == 12)
            }
        }

        @Test("a network that goes silent without closing: heartbeats stop, the client gives the connection up and resumes")
        func silentNetwork() async throws {
            try await withRig { rig in
                let profile = try rig.profile("stream", deadAfter: .seconds(3))
                let log = EventLog(profile)
                profile.start()
                #expect(await eventually { profile.isConnected })
                try await Self.increments(rig, 1)
                #expect(await eventually { log.ids == [1] })
                rig.proxy.freezeAll()
                let frozen = ContinuousClock.now
                try await Self.increments(rig, 2)
                // Nothing passes a frozen connection: only a new one brings 2 and 3.
                #expect(await eventually(within: .seconds(12)) { log.ids.count == 3 })
                let gap = ContinuousClock.now - frozen
                #expect(gap >= .seconds(2), "events came through a frozen connection")
                #expect(gap < .seconds(10), "the dead connection was noticed late: \(gap)")
                #expect(log.ids == [1, 2, 3])
            }
        }

        @Test("a position the server's log cannot continue from: the client reloads the state and carries on")
        func resetReloads() async throws {
            let suite = "navprefs-test-reset-\(UUID().uuidString)"
            let rig = try await ClientRig()
            let first = try rig.profile("stream", suite: suite)
            first.start()
            try await Self.increments(rig, 5)
            #expect(await eventually { first.lastEventID == 5 })
            await first.stop()
            await rig.server.stop()

            // A new database at the same address: its log has never issued event 5.
            let fresh = try await ServerProcess(database: "sqlite:" + rig.scratch.path("fresh.sqlite"), logPath: rig.scratch.path("fresh.log"),
                                                extra: ClientRig.serverFlags)
            rig.proxy.route(to: [fresh.port])
            _ = try await TestHTTP.request(port: fresh.port, "PUT", "/v1/profiles/stream/preferences/theme", json: #"{"value":"dark"}"#)
            let again = try rig.profile("stream", suite: suite)
            let log = EventLog(again)
            #expect(again.counter.value == 5, "the old mirror, until the server says otherwise")
            again.start()
            #expect(await eventually { log.all.contains { $0.type == "reset" } })
            #expect(await eventually { again.counter.value == 0 && again.preferences.string(forKey: "theme") == "dark" })
            _ = try await TestHTTP.request(port: fresh.port, "POST", "/v1/profiles/stream/counter/increment")
            #expect(await eventually { again.counter.value == 1 })
            #expect(again.lastEventID == 2)
            await again.close(erasingMirror: true)
            await first.close(erasingMirror: true)
            rig.proxy.close()
            await fresh.stop()
            rig.scratch.remove()
        }
    }
}
