import Foundation
import HTTPTestClient
import Synchronization
import Testing

/// Several `navprefs` processes on one PostgreSQL database: one truth, events that cross
/// instances, no acknowledged write lost when an instance dies, 503 while PostgreSQL is down and
/// service again once it is back. Needs `NAVPREFS_TEST_POSTGRES_URL` (scripts/lib/postgres.sh).
@Suite("Several instances on one PostgreSQL", .serialized,
       .enabled(if: PostgresServer.url != nil, "set NAVPREFS_TEST_POSTGRES_URL (scripts/lib/postgres.sh start)"))
struct MultiInstanceTests {
    @Test("2 x 200 concurrent increments split across two instances add exactly 400, each acknowledged value distinct")
    func incrementsAcrossInstances() async throws {
        let database = try await PostgresServer.createDatabase()
        let (a, portA) = try await ServiceProcess.start(url: database)
        let (b, portB) = try await ServiceProcess.start(url: database)
        // 16 clients, 8 on each instance, 25 increments each.
        let values = try await TestHTTP.onThreads(16) { index in
            let connection = try TestConnection(port: index % 2 == 0 ? portA : portB, timeout: .seconds(10))
            return try (0..<25).map { _ in
                let response = try connection.request("POST", "/v1/profiles/shared/counter/increment")
                guard response.status == 200 else { throw TestClientError.malformed("status \(response.status): \(response.text)") }
                return try response.int("value") ?? -1
            }
        }.flatMap { $0 }
        #expect(values.sorted() == Array(1...400), "every increment applied once, each answer a distinct value")
        for port in [portA, portB] {
            #expect(try await TestHTTP.request(port: port, "GET", "/v1/profiles/shared/counter").int("value") == 400)
        }
        try await stop(a, b)
    }

    @Test("a subscriber on instance B receives the refresh of a font change made through instance A within one second")
    func refreshCrossesInstances() async throws {
        let database = try await PostgresServer.createDatabase()
        let (a, portA) = try await ServiceProcess.start(url: database)
        let (b, portB) = try await ServiceProcess.start(url: database)
        let stream = try await SSEClient.open(port: portB, path: "/v1/profiles/reader/events?types=refresh")
        #expect(stream.head.status == 200)
        _ = try await stream.next()  // the retry hint
        let started = ContinuousClock.now
        let put = try await TestHTTP.request(port: portA, "PUT", "/v1/profiles/reader/font", json: #"{"sliderValue":3.6}"#)
        #expect(put.status == 200)
        let received = try await stream.messages { $0.event == "refresh" }
        let elapsed = ContinuousClock.now - started
        let refresh = try #require(received.last)
        #expect(refresh.id == "1")
        #expect(try refresh.json()["fontSize"] as? Int == 21)
        #expect(elapsed < .seconds(1), "took \(elapsed)")
        try await stop(a, b)
    }

    /// Issue 13 item 4: a revoked token's streams went on, and its stream tokens kept working.
    @Test("a token revoked through instance A ends its streams on instance B within the cache delay, and B refuses its stream tokens")
    func revocationCrossesInstances() async throws {
        let database = try await PostgresServer.createDatabase()
        let made = try await onOwnThread { try shell("'\(ServiceProcess.binary.path)' tokens create --admin --database '\(database)'") }
        let admin = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(made.status == 0 && admin.hasPrefix("npt_"), "\(made.output)")
        let (a, portA) = try await ServiceProcess.start(url: database)
        let (b, portB) = try await ServiceProcess.start(url: database)
        let adminHeader = [("Authorization", "Bearer " + admin)]
        let created = try await TestHTTP.request(port: portA, "POST", "/v1/admin/tokens", headers: adminHeader, json: #"{"profile":"ana"}"#)
        let ana = try #require(try created.json()["token"] as? String)
        let anaID = try #require(try created.json()["id"] as? String)
        let issued = try await TestHTTP.request(port: portA, "POST", "/v1/profiles/ana/events/token", headers: [("Authorization", "Bearer " + ana)])
        let streamToken = try #require(try issued.json()["token"] as? String)
        let byBearer = try await SSEClient.open(port: portB, path: "/v1/profiles/ana/events", headers: [("Authorization", "Bearer " + ana)])
        let byStreamToken = try await SSEClient.open(port: portB, path: "/v1/profiles/ana/events?access_token=\(streamToken)")
        #expect(byBearer.head.status == 200 && byStreamToken.head.status == 200)

        let revokedAt = ContinuousClock.now
        #expect(try await TestHTTP.request(port: portA, "DELETE", "/v1/admin/tokens/\(anaID)", headers: adminHeader).status == 204)
        for stream in [byBearer, byStreamToken] {
            let seen = try await stream.messages { $0.event == "revoked" }
            #expect(seen.last?.event == "revoked")
            let after = try await stream.next()
            #expect(after == nil)
        }
        let ended = ContinuousClock.now - revokedAt
        #expect(ended < .seconds(7), "B ended the streams after \(ended); the documented delay is 5 s")
        let refused = try await SSEClient.open(port: portB, path: "/v1/profiles/ana/events?access_token=\(streamToken)")
        #expect(refused.head.status == 401)
        #expect(try await TestHTTP.request(port: portB, "GET", "/v1/profiles/ana/counter", headers: [("Authorization", "Bearer " + ana)]).status == 401)
        try await stop(a, b)
    }

    @Test("kill -9 of one instance loses no acknowledged increment: the other serves every one")
    func killOneInstance() async throws {
        let database = try await PostgresServer.createDatabase()
        let (victim, victimPort) = try await ServiceProcess.start(url: database)
        let (survivor, survivorPort) = try await ServiceProcess.start(url: database)
        let acknowledged = Mutex<[Int64]>([])
        let indeterminate = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let clients = TestHTTP.startThreads(8) { _ in
            guard let connection = try? TestConnection(port: victimPort, timeout: .seconds(5)) else { return }
            while !stop.load(ordering: .relaxed) {
                do {
                    let response = try connection.request("POST", "/v1/profiles/crash/counter/increment")
                    if response.status == 200, let value = try response.int("value") { acknowledged.withLock { $0.append(value) } }
                } catch {
                    indeterminate.add(1, ordering: .relaxed)  // sent, no answer: applied or not
                    return
                }
            }
        }
        for _ in 0..<500 where acknowledged.withLock({ $0.count }) < 200 { try await Task.sleep(for: .milliseconds(10)) }
        victim.send(SIGKILL)
        _ = await victim.waitForExit()
        stop.store(true, ordering: .relaxed)
        for client in clients { try await client.value }
        let acked = acknowledged.withLock { $0 }
        #expect(acked.count >= 50, "the load did not get going")
        let value = try #require(try await TestHTTP.request(port: survivorPort, "GET", "/v1/profiles/crash/counter").int("value"))
        #expect(value >= acked.max() ?? 0 && value >= Int64(acked.count), "lost acknowledged increments: \(acked.count) acked, \(value) stored")
        #expect(value <= Int64(acked.count + indeterminate.load(ordering: .relaxed)), "more increments than were sent")
        survivor.send(SIGTERM)
        #expect(await survivor.waitForExit() == 0)
    }

    @Test("PostgreSQL stopped: 503 problem+json, no crash, liveness up, readiness degraded; back by itself once PostgreSQL is, streams included")
    func postgresOutage() async throws {
        // A cluster of its own: stopping the shared one would fail other tests.
        let cluster = try await PostgresServer.startCluster()
        do {
            try await outage(of: cluster.directory, url: cluster.url)
        } catch {
            await PostgresServer.removeCluster(cluster.directory)
            throw error
        }
        await PostgresServer.removeCluster(cluster.directory)
    }

    private func outage(of cluster: String, url: String) async throws {
        let (service, port) = try await ServiceProcess.start(url: url)
        defer { service.send(SIGKILL) }
        #expect(try await TestHTTP.request(port: port, "POST", "/v1/profiles/o/counter/increment").status == 200)
        let stream = try await SSEClient.open(port: port, path: "/v1/profiles/o/events?last_event_id=1")
        _ = try await stream.next()

        try await PostgresServer.stopCluster(cluster)
        for (method, path) in [("GET", "/v1/profiles/o/counter"), ("POST", "/v1/profiles/o/counter/increment")] {
            let response = try await TestHTTP.request(port: port, method, path)
            #expect(response.status == 503, "\(method) \(path): \(response.text)")
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(try response.json()["type"] as? String == "urn:navprefs:problem:storage-unavailable")
            #expect(response.header("Retry-After") != nil)
        }
        #expect(try await TestHTTP.request(port: port, "GET", "/healthz").status == 200, "the process is alive: no restart needed")
        // Readiness stays 200 (every instance shares the store: leaving the balancer helps nobody) and says why.
        let readiness = try await TestHTTP.request(port: port, "GET", "/readyz")
        #expect(readiness.status == 200 && readiness.text == #"{"status":"degraded"}"# + "\n", "\(readiness.status) \(readiness.text)")

        try await PostgresServer.restartCluster(cluster)
        let back = ContinuousClock.now
        var status = 0
        while status != 200 && ContinuousClock.now - back < .seconds(15) {
            status = try await TestHTTP.request(port: port, "GET", "/v1/profiles/o/counter").status
            if status != 200 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(status == 200, "service did not resume within 15 s")
        #expect(try await TestHTTP.request(port: port, "GET", "/readyz").text == #"{"status":"ready"}"# + "\n")
        let increment = try await TestHTTP.request(port: port, "POST", "/v1/profiles/o/counter/increment")
        #expect(try increment.int("value") == 2, "the write before the outage is kept, the failed one did nothing")
        let next = try await stream.messages { $0.id != nil }
        #expect(next.last?.id == "2", "the stream opened before the outage carries on")
        service.send(SIGTERM)
        #expect(await service.waitForExit() == 0)
    }

    private func stop(_ services: ServiceProcess...) async throws {
        for service in services { service.send(SIGTERM) }
        for service in services { #expect(await service.waitForExit() == 0) }
    }
}

/// The PostgreSQL server of the test run, and throwaway clusters through scripts/lib/postgres.sh.
enum PostgresServer {
    static let url: String? = {
        let url = ProcessInfo.processInfo.environment["NAVPREFS_TEST_POSTGRES_URL"] ?? ""
        return url.isEmpty ? nil : url
    }()

    static let script: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent("scripts/lib/postgres.sh").path
    }()

    /// A new, empty database on the test server; its URL.
    static func createDatabase() async throws -> String {
        let base = try #require(url)
        let name = "navprefs_e2e_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let result = try await onOwnThread { try shell("psql '\(base)' -v ON_ERROR_STOP=1 -qc 'CREATE DATABASE \(name)'") }
        try #require(result.status == 0, "psql could not create \(name)")
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        return try #require(components.string)
    }

    /// Starts a new cluster (initdb, pg_ctl) in a directory of its own. The script's output
    /// goes to a file, not a pipe: the postmaster outlives the script, and a pipe it inherited
    /// would never reach end-of-file.
    static func startCluster() async throws -> (url: String, directory: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navprefs-postgres.\(UUID().uuidString)").path
        try await run(["start", directory])
        let port = try String(contentsOfFile: directory + "/port", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return ("postgresql://postgres@127.0.0.1:\(port)/navprefs?sslmode=disable", directory)
    }

    /// Stops the cluster and keeps its files (and port) for ``restartCluster(_:)``.
    static func stopCluster(_ directory: String) async throws { try await run(["stop", directory, "--keep"]) }

    static func restartCluster(_ directory: String) async throws { try await run(["start", directory]) }

    /// Runs postgres.sh with its output in a file. Not through a pipe: the postmaster outlives
    /// the script and would keep the pipe open, so reading it would never end.
    private static func run(_ arguments: [String]) async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("navprefs-postgres-sh-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let status = try await onOwnThread {
            let descriptor = open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw ChildProcessError.spawn(errno) }
            defer { close(descriptor) }
            return try ChildProcess("/bin/bash", [script] + arguments, environment: ProcessInfo.processInfo.environment,
                                    output: descriptor, errors: descriptor).wait()
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        try #require(status == 0, "postgres.sh \(arguments.joined(separator: " ")) failed: \(output)")
    }

    static func removeCluster(_ directory: String) async {
        try? await run(["stop", directory])
    }
}
