import Foundation
import Glibc
@testable import NavPrefsSQLite
import Testing

/// `LockHolder` names the process serving a SQLite file and its port, from `/proc`.
@Suite("Lock holder: the serving process and its port, read from /proc")
struct LockHolderTests {
    /// Foundation's `String(contentsOfFile:)` reads one page of a `/proc` file: with a few hundred
    /// sockets open, `/proc/net/tcp` listed the first 26 and the listening port was not among
    /// them (the full suite's "served now" message lost its port under load).
    @Test("the listening port is found among 600 other sockets")
    func portAmongManySockets() throws {
        var others: [Int32] = []
        defer { for descriptor in others { close(descriptor) } }
        for _ in 0..<600 {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            try #require(descriptor >= 0)
            others.append(descriptor)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            } }
        }
        // The listener is made last: /proc/net/tcp lists newer sockets further down.
        let listener = try #require(others.last)
        #expect(listen(listener, 1) == 0)
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: bound.sin_port))
        #expect(LockHolder.listeningPorts(of: getpid()).contains(port))
    }
}
