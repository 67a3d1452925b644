import CMicroHTTPD
import Glibc

/// Whether ``HTTPServer/start()`` could bind its listening socket now: binds a socket to the
/// address as libmicrohttpd binds it (`SO_REUSEADDR`, so a port whose last connections linger
/// in `TIME_WAIT` is free) and closes it at once.
///
/// For a service that must not change anything on disk when it cannot listen, and for a check
/// that says whether it could: libmicrohttpd's own failure says only that it did not start.
/// Another process may still take the port between the probe and the start; the start then
/// fails with libmicrohttpd's own error.
public enum ListenProbe {
    public enum Outcome: Equatable, Sendable {
        case free
        /// Another socket listens there (`EADDRINUSE`).
        case inUse
        /// The host is not an address of this machine (`EADDRNOTAVAIL`).
        case notLocal
        /// A port below 1024 without the privilege to bind it (`EACCES`).
        case needsPrivilege
        /// Any other failure, as the system words it.
        case failed(String)
    }

    /// - Throws: ``HTTPServerError/invalidHost(_:)`` when `host` does not resolve.
    public static func bind(host: String, port: Int) throws(HTTPServerError) -> Outcome {
        let address = try SocketAddress(host: host, port: port)
        let descriptor = socket(Int32(address.storage.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failed(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        guard address.withSockaddr({ Glibc.bind(descriptor, $0, length) }) != 0 else { return .free }
        switch errno {
        case EADDRINUSE: return .inUse
        case EADDRNOTAVAIL: return .notLocal
        case EACCES: return .needsPrivilege
        case let other: return .failed(String(cString: strerror(other)))
        }
    }
}
