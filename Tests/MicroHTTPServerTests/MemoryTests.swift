import Foundation
import HTTPTestClient
import MicroHTTPServer
import Synchronization
import Testing

/// Resident memory per idle event stream: MHD's per-connection pool dominates it (see
/// ``ServerConfiguration/connectionMemoryBytes``). Opt-in (`MHD_MEMORY_PROBE=1`, and
/// `MHD_MEMORY_POOL=<bytes>` for another pool size) because it measures the whole process: run
/// it alone, `swift test --filter MemoryTests`, not beside other tests that allocate.
@Suite("HTTPServer: memory per idle stream", .enabled(if: ProcessInfo.processInfo.environment["MHD_MEMORY_PROBE"] == "1"))
struct MemoryTests {
    @Test("2000 idle event streams cost at most 9 KiB of resident memory each (client side included)")
    func idleStreamCost() async throws {
        var configuration = ServerConfiguration(port: 0)
        if let pool = ProcessInfo.processInfo.environment["MHD_MEMORY_POOL"].flatMap(Int.init) {
            configuration.connectionMemoryBytes = pool
        }
        configuration.maxConnectionsPerIP = 100_000
        let count = 2_000
        try await withTestServer(configuration) { server, handler in
            let port = server.port
            @Sendable func openStreams(_ count: Int) throws -> [TestConnection] {
                try (0..<count).map { _ in
                    let connection = try TestConnection(port: port)
                    try connection.send("GET", "/stream")
                    _ = try connection.readHead()
                    _ = try connection.readStream(until: "first\n")
                    return connection
                }
            }
            // A first batch warms up the allocator, threads and the server's tables.
            let warm = try await TestHTTP.onThreads(1) { _ in try openStreams(50) }
            try await Task.sleep(for: .milliseconds(200))
            let before = residentKiB()
            let held = try await TestHTTP.onThreads(1) { _ in try openStreams(count) }
            try await Task.sleep(for: .milliseconds(300))
            let perStream = Double(residentKiB() - before) / Double(count)
            print("idle stream cost with a \(configuration.connectionMemoryBytes)-byte pool: \(perStream) KiB (\(held[0].count + warm[0].count) open)")
            if configuration.connectionMemoryBytes == ServerConfiguration(port: 0).connectionMemoryBytes {
                #expect(perStream <= 9.0)
            }
            for stream in handler.streams.withLock({ $0 }) { stream.finish() }
        }
    }

    private func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
