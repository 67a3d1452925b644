import Foundation
import HTTPTestClient
import Synchronization
import Testing
import NavPrefsSQLite

/// Acknowledged means committed: what the service answered 2xx for survives `kill -9`.
@Suite("Durability under kill -9", .serialized)
struct CrashDurabilityTests {
    /// What the clients saw: values of acknowledged increments, and requests that got no answer.
    final class Ledger: Sendable {
        let acknowledged = Mutex<[Int64]>([])
        let indeterminate = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
    }

    @Test("every acknowledged increment survives kill -9 of the server", arguments: ["full", "normal"])
    func acknowledgedIncrementsSurvive(synchronous: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("crash.sqlite")
        let (service, port) = try await ServiceProcess.start(database: database, extra: ["--sqlite-synchronous", synchronous])
        let ledger = Ledger()
        let clients = TestHTTP.startThreads(8) { _ in
            guard let connection = try? TestConnection(port: port, timeout: .seconds(5)) else { return }
            while !ledger.stop.load(ordering: .relaxed) {
                do {
                    let response = try connection.request("POST", "/v1/profiles/crash/counter/increment")
                    if response.status == 200, let value = try response.int("value") {
                        ledger.acknowledged.withLock { $0.append(value) }
                    }
                } catch {
                    // Sent, and no answer: it may or may not have been applied.
                    ledger.indeterminate.add(1, ordering: .relaxed)
                    return
                }
            }
        }
        // Kill in the middle of the load, once a good number of writes were acknowledged.
        for _ in 0..<500 where ledger.acknowledged.withLock({ $0.count }) < 300 {
            try await Task.sleep(for: .milliseconds(10))
        }
        service.send(SIGKILL)
        _ = await service.waitForExit()
        ledger.stop.store(true, ordering: .relaxed)
        for client in clients { try await client.value }

        let acknowledged = ledger.acknowledged.withLock { $0 }
        let indeterminate = ledger.indeterminate.load(ordering: .relaxed)
        #expect(acknowledged.count >= 50, "the load did not get going: \(service.standardOutput.suffix(500))")
        #expect(Set(acknowledged).count == acknowledged.count, "two increments were acknowledged with the same value")

        let (restarted, newPort) = try await ServiceProcess.start(database: database, extra: ["--sqlite-synchronous", synchronous])
        let final = try await TestHTTP.request(port: newPort, "GET", "/v1/profiles/crash/counter")
        let value = try #require(try final.int("value"))
        #expect(value >= Int64(acknowledged.count), "lost acknowledged increments: \(acknowledged.count) acked, \(value) stored")
        #expect(value <= Int64(acknowledged.count + indeterminate), "more increments than were sent")
        #expect(value >= acknowledged.max() ?? 0)
        restarted.send(SIGTERM)
        #expect(await restarted.waitForExit() == 0)
        let integrity = try shell("sqlite3 '\(database)' 'PRAGMA integrity_check'")
        #expect(integrity.output == "ok\n")
    }
}

extension TestResponse {
    func int(_ key: String) throws -> Int64? {
        (try json()[key] as? NSNumber)?.int64Value
    }
}
