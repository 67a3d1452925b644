import Dispatch
import Foundation
import HTTPTestClient
import Testing

/// The routes that await the store run their tasks on the service's own threads
/// (`RequestTaskExecutor`), not on the task pool the process shares: with every thread of that
/// pool blocked, they are still answered. Before, an event stream's opening waited up to 11 s
/// for a pool thread in the loaded test process, and a test failed after 40 s (twice in CI).
@Suite("Requests that await, answered while the shared task pool is blocked",
       .overSockets("the blocking client calls go out from this thread, since no pool thread is left to await them"))
struct RequestTasksAPITests {
    @Test("/metrics, /readyz's ping and an event stream's opening, with every pool thread blocked")
    func answeredWithThePoolBlocked() async throws {
        try await withApp { app in
            // Every pool thread but this one waits on `release`; this one makes blocking calls.
            let others = ProcessInfo.processInfo.activeProcessorCount - 1
            let (started, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            for _ in 0..<others {
                Task.detached {
                    started.signal()
                    release.wait()
                }
            }
            for _ in 0..<others { started.wait() }
            defer { for _ in 0..<others { release.signal() } }

            let metrics = Result { try TestHTTP.request(port: app.port, "GET", "/metrics") }
            let ready = Result { try TestHTTP.request(port: app.port, "GET", "/readyz") }
            let stream = Result { () throws -> SSEMessage? in
                let stream = try SSEClient(port: app.port, path: "/v1/profiles/ana/events")
                return try stream.next()
            }
            let (metricsStatus, readyStatus, opening) = (try metrics.get().status, try ready.get().status, try stream.get())
            #expect(metricsStatus == 200)
            #expect(readyStatus == 200)
            #expect(opening?.retry != nil, "the stream opened: its retry hint came")
        }
    }
}
