import Foundation
import HTTPTestClient
import Synchronization
import Testing

/// `navprefs backup` of a running SQLite service under concurrent writes, restored as
/// docs/operations.md says: the copy holds every write acknowledged before the backup began, and no write in part.
@Suite("Online backup of SQLite")
struct BackupTests {
    @Test("a backup taken under concurrent writes restores with every write acknowledged before it began, none in part")
    func backupUnderWrites() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.path("live.sqlite")
        let (service, port) = try await ServiceProcess.start(database: path, extra: ["--event-retention-count", "1000000"])
        let writers = 4
        let stop = Atomic<Bool>(false)
        // Per writer: the values acknowledged, with when their answer arrived.
        let acknowledged = Mutex<[[(value: Int, at: ContinuousClock.Instant)]]>(Array(repeating: [], count: writers + 1))
        let threads = TestHTTP.startThreads(writers + 1) { index in
            let connection = try TestConnection(port: port, timeout: .seconds(10))
            var count = 0
            while !stop.load(ordering: .relaxed) {
                count += 1
                let response = index < writers
                    ? try connection.request("POST", "/v1/profiles/writer\(index)/counter/increment")
                    // A font change writes two keys and one event in one transaction.
                    : try connection.request("PUT", "/v1/profiles/font/font", json: #"{"sliderValue":\#(count % 900)}"#)
                guard response.status == 200 else { throw TestClientError.malformed("status \(response.status): \(response.text)") }
                let at = ContinuousClock.now
                acknowledged.withLock { $0[index].append((count, at)) }
            }
        }
        try await Task.sleep(for: .milliseconds(400))
        let began = ContinuousClock.now
        let copy = scratch.path("copy.sqlite")
        let backup = try await NavPrefsCommand.run(["backup", "--output", copy, "--database", "sqlite:" + path])
        let ended = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(200))
        stop.store(true, ordering: .relaxed)
        for thread in threads { try await thread.value }
        #expect(backup.status == 0, "\(backup)")
        #expect(backup.errors.contains("copied to \(copy)"), "\(backup)")
        let before = acknowledged.withLock { lists in lists.map { list in list.filter { $0.at < began }.last?.value ?? 0 } }
        let written = acknowledged.withLock { $0.map(\.count) }
        #expect(before.allSatisfy { $0 > 0 }, "writes were acknowledged before the backup: \(before)")
        let during = acknowledged.withLock { $0.joined().filter { $0.at > began && $0.at < ended }.count }
        #expect(during > 0, "writes were acknowledged while the backup ran")
        await service.stop()

        // The restore docs/operations.md describes: the service stopped, its WAL files gone, the copy in place.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try FileManager.default.moveItem(atPath: copy, toPath: path)
        let (restored, restoredPort) = try await ServiceProcess.start(database: path)
        for writer in 0..<writers {
            let counter = try await TestHTTP.request(port: restoredPort, "GET", "/v1/profiles/writer\(writer)/counter")
            let value = Int(try #require(try counter.int("value")))
            #expect(value >= before[writer], "writer \(writer): \(value) restored, \(before[writer]) acknowledged before the backup")
            #expect(value <= written[writer])
            // No write in part: each increment's value, version and event are there together.
            #expect(try counter.int("version") == Int64(value))
            let stream = try await SSEClient.open(port: restoredPort, path: "/v1/profiles/writer\(writer)/events?last_event_id=0")
            let events = try await stream.messages { $0.id == String(value) }.filter { $0.event == "counter" }
            #expect(events.map(\.id) == (1...value).map { String($0) })
            let last = try #require(events.last)
            #expect(try last.json()["value"] as? Int == value)
        }
        let font = try await TestHTTP.request(port: restoredPort, "GET", "/v1/profiles/font/font")
        let slider = try #require(try font.json()["sliderValue"] as? Double)
        #expect(try font.json()["fontSize"] as? Double == slider + 17, "both keys of one font change, never one of them")
        let fontVersion = Int(try #require(try font.int("version")))
        #expect(fontVersion >= before[writers] && fontVersion <= written[writers])
        #expect(slider == Double(fontVersion % 900))
        await restored.stop()
    }
}
