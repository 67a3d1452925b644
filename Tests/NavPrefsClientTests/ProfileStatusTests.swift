import Foundation
import HTTPTestClient
import NavPrefsClient
import Observation
import Testing

extension ClientSuites {
    /// What an app can see (issue 22): the first state and where it came from, the connection and
    /// the last error as they change, observable with Observation on Linux too; the reconnect
    /// after a server restart within a second.
    @Suite("State an app can see")
    struct ProfileStatusTests {
        @Test("ready(): the server's state on a fresh install, the mirror's at the next launch")
        func ready() async throws {
            try await withRig { rig in
                _ = try await rig.request("POST", "/v1/profiles/ready/counter/increment", json: #"{"by": 5}"#)
                let suite = "navprefs-test-\(UUID().uuidString)"
                let first = try rig.profile("ready", suite: suite)
                #expect(first.counter.stringValue == "0", "nothing known before the first state")
                #expect(try await first.ready() == .server)
                #expect(first.counter.stringValue == "5")
                await first.stop()
                let again = try rig.profile("ready", suite: suite)
                #expect(try await again.ready() == .mirror)
                #expect(again.counter.stringValue == "5")
            }
        }

        /// Starts tracking what `read` reads of a status on the main actor; the flag turns true
        /// at the first change of it.
        static func track(_ read: @escaping @MainActor @Sendable () -> Void) async -> Locked<Bool> {
            let fired = Locked(false)
            await MainActor.run {
                withObservationTracking { read() } onChange: { fired.withLock { $0 = true } }
            }
            return fired
        }

        /// The status as the main actor sees it.
        static func read(_ status: ProfileStatus) async -> (connection: ConnectionState, error: NavPrefsError?, pending: Int) {
            await MainActor.run { (status.connection, status.lastError, status.pendingWrites) }
        }

        @Test("connection, last error and pending writes are observable (withObservationTracking), and follow an outage")
        func observable() async throws {
            try await withRig { rig in
                let profile = try rig.profile("status")
                let status = profile.status
                #expect(await Self.read(status).connection == .stopped)
                let connection = await Self.track { _ = status.connection }
                profile.start()
                #expect(await eventually { connection.withLock { $0 } }, "observers of the connection are told")
                #expect(await eventually { await Self.read(status).connection == .connected })

                let error = await Self.track { _ = status.lastError }
                rig.proxy.route(to: [])
                rig.proxy.cutAll()
                #expect(await eventually { error.withLock { $0 } }, "observers of the last error are told")
                #expect(await eventually { await Self.read(status).connection == .offline })
                #expect(await Self.read(status).error != nil, "an outage is not silent")

                let pending = await Self.track { _ = status.pendingWrites }
                profile.preferences.set(true, forKey: "queued")
                #expect(await eventually { pending.withLock { $0 } }, "observers of the outbox are told")
                #expect(await Self.read(status).pending == 1)

                rig.proxy.route(to: [rig.server.port])
                #expect(await eventually {
                    let now = await Self.read(status)
                    return now.connection == .connected && now.error == nil && now.pending == 0
                })
            }
        }

        @Test("a server restart: the client is connected again within 1 s of the new server listening")
        func reconnectsAtOnce() async throws {
            let rig = try await ClientRig()
            let profile = try rig.profile("restart")
            profile.start()
            #expect(await eventually { profile.isConnected })
            await rig.server.stop()
            #expect(await eventually { !profile.isConnected })
            let restarted = try await ServerProcess(database: rig.database, logPath: rig.scratch.path("restarted.log"), extra: ClientRig.serverFlags)
            rig.proxy.route(to: [restarted.port])
            let back = ContinuousClock.now
            #expect(await eventually(within: .seconds(5)) { profile.isConnected })
            let took = ContinuousClock.now - back
            print("reconnected \(took) after the restarted server listened")
            #expect(took < .seconds(1))
            await profile.close(erasingMirror: true)
            rig.proxy.close()
            await restarted.stop()
            rig.scratch.remove()
        }

        @Test("NavPrefsError reads as the server's problem detail")
        func localizedError() async throws {
            try await withRig { rig in
                let profile = try rig.profile("errors")
                do throws(NavPrefsError) {
                    try await profile.preferences.onServer.set("one", forKey: "numIndex")
                    Issue.record("accepted")
                } catch {
                    let detail = try #require(error.problem?.detail)
                    #expect(error.localizedDescription == detail)
                    #expect((error as any Error).localizedDescription == detail)
                }
            }
        }
    }
}
