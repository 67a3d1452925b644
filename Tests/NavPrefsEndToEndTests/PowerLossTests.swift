import Foundation
import HTTPTestClient
import Synchronization
import Testing

/// Acknowledged means flushed, with `--sqlite-synchronous full` (the default): what the service
/// answered 2xx for is in the database's files as a power loss would leave them.
///
/// A `kill -9` cannot show that (the log's pages survive a killed process in the page cache), so
/// the service runs with `scripts/power-loss/flush-images.c` preloaded: at every `fsync` and
/// `fdatasync` of the database or its log it keeps a copy of the file as it was when the flush
/// began, once the flush returned. After a `kill -9` under writers, those copies (each file as
/// of its last completed flush, nothing written after it) are opened as the database a power
/// loss at that moment could leave, and every acknowledged write must be in them.
@Suite("Durability under power loss: the files as of their last flush", .serialized)
struct PowerLossTests {
    final class Ledger: Sendable {
        /// Values of acknowledged increments.
        let increments = Mutex<[Int64]>([])
        /// Per writer, the last value its preference key was acknowledged with.
        let keys = Mutex<[Int: Int]>([:])
        let stop = Atomic<Bool>(false)
    }

    @Test("every increment and preference write acknowledged at FULL is in the files as of their last flush, after kill -9 under 8 writers")
    func acknowledgedWritesAreFlushed() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("power.sqlite"), images = scratch.path("images")
        let (service, port) = try await Self.startImaged(database: database, images: images, synchronous: "full")
        let ledger = Ledger()
        // Increments run in the event loop's turns; the preference writes measure the quota and
        // go through the writer thread: both are answered after the syncer's flush.
        let clients = TestHTTP.startThreads(8) { writer in
            guard let connection = try? TestConnection(port: port, timeout: .seconds(5)) else { return }
            var next = 1
            while !ledger.stop.load(ordering: .relaxed) {
                do {
                    if next % 4 == 0 {
                        let response = try connection.request("PUT", "/v1/profiles/power/preferences/writer\(writer)",
                                                              headers: [("Content-Type", "application/json")],
                                                              body: Array(#"{"value": \#(next)}"#.utf8))
                        if response.status == 200 || response.status == 201 { ledger.keys.withLock { $0[writer] = next } }
                    } else {
                        let response = try connection.request("POST", "/v1/profiles/power/counter/increment")
                        if response.status == 200, let value = try response.int("value") {
                            ledger.increments.withLock { $0.append(value) }
                        }
                    }
                    next += 1
                } catch {
                    return  // no answer: it may or may not have been applied
                }
            }
        }
        for _ in 0..<1000 where ledger.increments.withLock({ $0.count }) < 400 {
            try await Task.sleep(for: .milliseconds(10))
        }
        service.send(SIGKILL)
        _ = await service.waitForExit()
        ledger.stop.store(true, ordering: .relaxed)
        for client in clients { try await client.value }

        let increments = ledger.increments.withLock { $0 }, keys = ledger.keys.withLock { $0 }
        #expect(increments.count >= 100, "the load did not get going: \(service.standardOutput.suffix(500))")
        #expect(FileManager.default.fileExists(atPath: images + "/power.sqlite-wal"), "no flush of the log was imaged")
        let restored = try Self.restore(images: images, into: scratch.path("restored"), name: "power.sqlite")
        let (after, newPort) = try await ServiceProcess.start(database: restored, extra: ["--sqlite-synchronous", "full"])
        let counter = try #require(try await TestHTTP.request(port: newPort, "GET", "/v1/profiles/power/counter").int("value"))
        #expect(counter >= Int64(increments.count), "acknowledged increments missing: \(increments.count) acknowledged, \(counter) in the files")
        #expect(counter >= increments.max() ?? 0, "the highest acknowledged value \(increments.max() ?? 0) is not in the files (\(counter))")
        for (writer, value) in keys.sorted(by: { $0.key < $1.key }) {
            let stored = try await TestHTTP.request(port: newPort, "GET", "/v1/profiles/power/preferences/writer\(writer)").int("value")
            #expect((stored ?? 0) >= Int64(value), "writer\(writer): acknowledged \(value), the files hold \(String(describing: stored))")
        }
        after.send(SIGTERM)
        #expect(await after.waitForExit() == 0)
        #expect(try shell("sqlite3 '\(restored)' 'PRAGMA integrity_check'").output == "ok\n")
    }

    @Test("the images show what a power loss takes: at NORMAL, writes acknowledged without a flush are not in them")
    func normalLosesUnflushedWrites() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("loose.sqlite"), images = scratch.path("images")
        let (service, port) = try await Self.startImaged(database: database, images: images, synchronous: "normal")
        // Few writes, one after the other: far from the 1,000 pages that start a checkpoint,
        // which flushes the log at NORMAL too.
        var acknowledged = 0
        for _ in 0..<20 where try await TestHTTP.request(port: port, "POST", "/v1/profiles/loose/counter/increment").status == 200 {
            acknowledged += 1
        }
        #expect(acknowledged == 20)
        service.send(SIGKILL)
        _ = await service.waitForExit()
        let restored = try Self.restore(images: images, into: scratch.path("restored"), name: "loose.sqlite")
        let (after, newPort) = try await ServiceProcess.start(database: restored, extra: ["--sqlite-synchronous", "normal"])
        let counter = try await TestHTTP.request(port: newPort, "GET", "/v1/profiles/loose/counter").int("value") ?? 0
        #expect(counter < Int64(acknowledged), "NORMAL flushed nothing after its writes, yet the images hold \(counter) of \(acknowledged)")
        after.send(SIGTERM)
        #expect(await after.waitForExit() == 0)
    }

    /// Starts navprefs on `database` with the imaging library preloaded (built here).
    static func startImaged(database: String, images: String, synchronous: String) async throws -> (ServiceProcess, Int) {
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        let library = try buildImagingLibrary(in: URL(fileURLWithPath: images).deletingLastPathComponent().path)
        return try await ServiceProcess.start(database: database, extra: ["--sqlite-synchronous", synchronous],
                                              environment: ["LD_PRELOAD": library, "POWER_LOSS_WATCH": database,
                                                            "POWER_LOSS_IMAGES": images])
    }

    /// Compiles scripts/power-loss/flush-images.c with the C compiler on the PATH (the Swift
    /// toolchain brings clang); the shared library's path.
    static func buildImagingLibrary(in directory: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = root.appendingPathComponent("scripts/power-loss/flush-images.c").path
        let library = directory + "/flush-images.so"
        let build = try shell("""
            compiler=$(command -v cc || command -v clang || command -v gcc) || { echo 'no C compiler on the PATH'; exit 1; }
            "$compiler" -shared -fPIC -O1 -o '\(library)' '\(source)' -ldl -lpthread 2>&1
            """)
        try #require(build.status == 0, "cannot build the imaging library: \(build.output)")
        return library
    }

    /// The database a power loss could leave: the images of the file and its log (an empty file
    /// when the file was never flushed), and no -shm (SQLite rebuilds it from the log).
    static func restore(images: String, into directory: String, name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let restored = directory + "/" + name
        let files = FileManager.default
        if files.fileExists(atPath: images + "/" + name) {
            try files.copyItem(atPath: images + "/" + name, toPath: restored)
        } else {
            #expect(files.createFile(atPath: restored, contents: nil))
        }
        if files.fileExists(atPath: images + "/" + name + "-wal") {
            try files.copyItem(atPath: images + "/" + name + "-wal", toPath: restored + "-wal")
        }
        return restored
    }
}
