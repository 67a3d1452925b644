import Foundation
import HTTPTestClient
import NavPrefsClient
import Testing

/// The PostgreSQL server of the test run, if any.
let postgresURL: String? = {
    let url = ProcessInfo.processInfo.environment["NAVPREFS_TEST_POSTGRES_URL"] ?? ""
    return url.isEmpty ? nil : url
}()

extension ClientSuites {
    /// Two `navprefs` instances on one PostgreSQL database behind one address: a write whose
    /// answer is lost on one instance and retried on the other is applied once. Needs
    /// `NAVPREFS_TEST_POSTGRES_URL` (scripts/lib/postgres.sh; scripts/test's PostgreSQL step).
    @Suite("The client and two instances on PostgreSQL",
           .enabled(if: postgresURL != nil, "set NAVPREFS_TEST_POSTGRES_URL (scripts/lib/postgres.sh start)"))
    struct ClientPostgresTests {
        static var url: String? { postgresURL }

        /// A new, empty database on the test server; its URL.
        static func createDatabase() async throws -> String {
            let base = try #require(url)
            let name = "navprefs_client_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let created = try await onOwnThread {
                try runToEnd("/bin/sh", ["-c", "psql '\(base)' -v ON_ERROR_STOP=1 -qc 'CREATE DATABASE \(name)'"],
                             environment: ProcessInfo.processInfo.environment)
            }
            try #require(created.status == 0, "psql could not create \(name)")
            var components = try #require(URLComponents(string: base))
            components.path = "/" + name
            return try #require(components.string)
        }

        @Test("an increment applied on instance A whose answer is lost is retried on instance B: counted once, answered the same")
        func retryOnTheOtherInstance() async throws {
            let database = try await Self.createDatabase()
            let rig = try await ClientRig(database: database)
            let other = try await ServerProcess(database: database, logPath: rig.scratch.path("b.log"), extra: ClientRig.serverFlags)
            do {
                let profile = try rig.profile("shared")
                try await profile.reload()
                // The reload's kept-alive connection would carry the increment to whichever
                // instance it reached: start from no connection, so A gets the first, B the next.
                rig.proxy.cutAll()
                rig.proxy.route(to: [rig.server.port, other.port])
                rig.proxy.loseAnswers(1)
                // Each write goes out on a connection of its own: the increment to A, which
                // applies it and whose answer is lost; the library's retry to B.
                #expect(try await profile.counter.onServer.increment(by: 3) == 3)
                let route = "/v1/profiles/{profile}/counter/increment"
                let (onA, onB) = (try await rig.server.requests("POST", route), try await other.requests("POST", route))
                #expect(onA == 1 && onB == 1, "increments on A: \(onA), on B: \(onB)")
                for port in [rig.server.port, other.port] {
                    #expect(try await TestHTTP.request(port: port, "GET", "/v1/profiles/shared/counter").int("value") == 3)
                }
                // A follower on B sees exactly one counter event.
                let follower = try rig.profile("shared")
                let log = EventLog(follower)
                follower.start()
                #expect(await eventually { follower.counter.value == 3 })
                #expect(try await profile.counter.onServer.increment() == 4)
                #expect(await eventually { log.ids == [2] })
            } catch {
                await other.stop()
                await rig.finish()
                throw error
            }
            await other.stop()
            await rig.finish()
        }
    }
}
