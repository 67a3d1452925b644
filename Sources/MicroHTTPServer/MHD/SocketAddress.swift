import CMicroHTTPD
import Glibc

/// A resolved listening address, kept in a `sockaddr_storage` that libmicrohttpd copies at start.
struct SocketAddress {
    var storage = sockaddr_storage()
    var isIPv6: Bool { storage.ss_family == sa_family_t(AF_INET6) }

    /// Resolves `host` (numeric address or name) for a passive TCP socket on `port`.
    init(host: String, port: Int) throws(HTTPServerError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            throw .invalidHost(host)
        }
        defer { freeaddrinfo(results) }
        guard let address = first.pointee.ai_addr,
              Int(first.pointee.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size
        else { throw .invalidHost(host) }
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(first.pointee.ai_addrlen)))
        }
    }

    /// Calls `body` with the address as the `sockaddr` pointer C expects.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>) -> R) -> R {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self))
        }
    }

    /// The numeric text form of a peer address (`127.0.0.1`, `::1`), or `nil` for other families.
    static func text(of address: UnsafePointer<sockaddr>) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = Int32(address.pointee.sa_family)
        let converted: UnsafePointer<CChar>?
        switch family {
        case AF_INET:
            converted = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                var raw = ipv4.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
            }
        case AF_INET6:
            converted = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                var raw = ipv6.pointee.sin6_addr
                return inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
            }
        default:
            return nil
        }
        guard converted != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
