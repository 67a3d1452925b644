import MicroHTTPServer
import Synchronization

/// Request ids: the client's `X-Request-ID` when it is short and printable, else a new one.
enum RequestID {
    private static let counter = Atomic<UInt64>(0)
    private static let prefix = String(UInt32.random(in: 0...UInt32.max), radix: 16)

    static func take(from headers: HTTPHeaders) -> String {
        if let given = headers[HeaderName.xRequestID], !given.isEmpty, given.utf8.count <= 128,
           given.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            return given
        }
        return prefix + "-" + String(counter.wrappingAdd(1, ordering: .relaxed).newValue, radix: 16)
    }
}
