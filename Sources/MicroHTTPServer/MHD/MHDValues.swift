import CMicroHTTPD
import Glibc

/// Reads request values (headers, query arguments, the peer address) out of a connection.
enum MHDValues {
    static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        // Room for a usual head's fields at once: growing by doubling cost an allocation each.
        var headers = HTTPHeaders(reservingCapacity: 12)
        withUnsafeMutablePointer(to: &headers) { target in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, headerCollector, target)
        }
        return headers
    }

    static func query(of connection: OpaquePointer) -> [(name: String, value: String?)] {
        var items: [(name: String, value: String?)] = []
        withUnsafeMutablePointer(to: &items) { target in
            _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, queryCollector, target)
        }
        return items
    }

    /// The peer's address, formatted once per connection (when it opened), not per request.
    static func remoteAddress(of connection: OpaquePointer) -> String? {
        PeerInfo.of(connection)?.remoteAddress
    }
}

/// Appends each header field to the `HTTPHeaders` that `cls` points to.
private let headerCollector: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    cls.assumingMemoryBound(to: HTTPHeaders.self).pointee.add(
        String(cString: key), value.map { String(cString: $0) } ?? "")
    return .YES
}

/// Appends each query argument to the array that `cls` points to.
private let queryCollector: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    cls.assumingMemoryBound(to: [(name: String, value: String?)].self).pointee.append(
        (name: String(cString: key), value: value.map { String(cString: $0) }))
    return .YES
}
