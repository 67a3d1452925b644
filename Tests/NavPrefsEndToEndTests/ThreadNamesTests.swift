import Foundation
import HTTPTestClient
import Testing

/// The operating system shows the service's threads by name (`top -H`, `perf report --sort
/// comm`, `/proc/PID/task/*/comm`): Foundation on Linux keeps a name set before a thread starts
/// to itself, so each thread names itself as it starts (`startNamedThread`, the event loop).
/// Before, all of them showed as the task pool's `…root.default-qos`.
@Suite("Thread names the operating system shows")
struct ThreadNamesTests {
    @Test("a running service's threads carry their names in /proc (SQLite, FULL)")
    func namesReachTheKernel() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (service, port) = try await ServiceProcess.start(database: scratch.path("threads.sqlite"))
        #expect(try await TestHTTP.request(port: port, "GET", "/metrics").status == 200)
        let tasks = "/proc/\(service.process.pid)/task"
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap { task in
            try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        })
        await service.stop()
        let expected: Set = ["http-event-loop", "sqlite-writer", "sqlite-reader-0", "large-reader-0", "sqlite-wal-sync",
                             "sse-delivery", "sse-heartbeat", "log-flusher", "large-work-0", "request-tasks-0"]
        #expect(expected.subtracting(names).isEmpty, "missing \(expected.subtracting(names).sorted()) among \(names.sorted())")
    }
}
