import Foundation
import HTTPTestClient
import Testing

/// A SIGTERM at any moment of start-up is a request to stop: the process finishes the step it
/// is in, stops what started, in reverse, and exits 0 (never killed by the default action, never
/// listening after it).
@Suite("navprefs process: SIGTERM during start-up")
struct StartupSignalTests {
    @Test("SIGTERM at several moments between the first log line and listening: exit 0, and the file opens again",
          arguments: [0, 1, 2, 4, 8, 15, 30, 60, 120])
    func sigtermDuringStartup(delayMilliseconds: Int) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("startup.sqlite")
        let service = try ServiceProcess(["--port", "0", "--database", "sqlite:" + database])
        // The first line comes after the handlers are installed (they are the first thing it does).
        try await service.waitForOutput(containing: "\"msg\":\"starting\"")
        if delayMilliseconds > 0 { try await Task.sleep(for: .milliseconds(delayMilliseconds)) }
        service.send(SIGTERM)
        let status = await service.waitForExit()
        #expect(status == 0, "exit status \(String(describing: status)): \(service.standardOutput.suffix(600)) \(service.standardError.suffix(300))")
        #expect(service.standardOutput.contains("\"msg\":\"stopped\""))
        // Nothing was left half-open: the next process owns the file and serves it.
        let (next, port) = try await ServiceProcess.start(database: database)
        #expect(try await TestHTTP.request(port: port, "GET", "/readyz").status == 200)
        next.send(SIGTERM)
        #expect(await next.waitForExit() == 0)
    }

    @Test("SIGTERM while the store's database does not answer: the start is abandoned, exit 0")
    func sigtermWhileTheDatabaseHangs() async throws {
        // A listener that accepts connections (the kernel does) and never says a word: libpq
        // waits for the server's greeting until its connect timeout, 60 s here, so the process
        // is still connecting when the signal comes, however slowly this test gets there, and an
        // exit within 20 s is the abandoned connect, not the timeout.
        let silent = try SilentListener()
        defer { silent.close() }
        let url = "postgresql://navprefs@127.0.0.1:\(silent.port)/navprefs?sslmode=disable&connect_timeout=60"
        let service = try ServiceProcess(["--port", "0", "--database", url])
        try await service.waitForOutput(containing: "\"msg\":\"starting\"")
        try await Task.sleep(for: .milliseconds(300))
        #expect(service.process.isRunning, "still connecting: \(service.standardOutput.suffix(300)) \(service.standardError.suffix(600))")
        service.send(SIGTERM)
        let status = await service.waitForExit(timeout: .seconds(20))
        #expect(status == 0, "exit status \(String(describing: status)): \(service.standardOutput.suffix(600))")
        #expect(!service.standardOutput.contains("\"msg\":\"listening\""), "it never listened")
        #expect(service.standardOutput.contains("\"msg\":\"stopped\""))
    }
}

/// A TCP listener on loopback that never accepts: connections complete in the kernel's backlog
/// and then hear nothing.
final class SilentListener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw TestClientError.malformed("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, length) }
        }
        guard bound == 0, listen(socketDescriptor, 16) == 0 else {
            Glibc.close(socketDescriptor)
            throw TestClientError.malformed("bind/listen failed")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        descriptor = socketDescriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(descriptor) }
}
