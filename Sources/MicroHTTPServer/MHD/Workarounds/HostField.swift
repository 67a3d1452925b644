/// Workaround ``MHDWorkarounds/checkHostItself``, and RFC 9112 §3.2 in full: a request carries
/// exactly one `Host` (HTTP/1.0 may carry none), and its value is `uri-host [ ":" port ]`.
///
/// libmicrohttpd 0.9.75's own check (`MHD_OPTION_STRICT_FOR_CLIENT`) finds a missing `Host`
/// only after the header fields, queues its 400 page, and then builds the response head a second
/// time: the client reads two status lines, the first `Content-Length` swallowing the second.
/// It never noticed two `Host` fields at all. So MHD runs without it and the server checks here.
public enum HostField {
    /// A `Host` value taken apart: the name (lowercase, an IPv6 literal without its brackets)
    /// and the port, if any.
    public struct Parsed: Sendable, Equatable {
        public let name: String
        public let port: Int?
        /// Whether the name is an IPv6 literal (it was written in brackets).
        public let isIPv6Literal: Bool
    }

    /// Why the request's `Host` is refused, or `nil` when it has exactly one valid one (or, in
    /// HTTP/1.0, none).
    static func refusal(_ headers: HTTPHeaders, httpVersion: String) -> HTTPRejection? {
        switch headers.count(of: HeaderName.host) {
        case 0: return httpVersion == "HTTP/1.0" ? nil : .invalidHost
        case 1: return headers[HeaderName.host].flatMap(scan) == nil ? .invalidHost : nil
        default: return .invalidHost
        }
    }

    /// Parses `uri-host [ ":" port ]` (RFC 3986 §3.2.2): an IP literal in brackets is the whole
    /// name (`[::1].evil.example` is no host), a registered name holds only unreserved
    /// characters, sub-delimiters and percent-escapes, a port only digits. `nil` when it is not
    /// such a value.
    public static func parse(_ value: String) -> Parsed? {
        guard let (name, port, isIPv6) = scan(value) else { return nil }
        return Parsed(name: name.lowercased(), port: port, isIPv6Literal: isIPv6)
    }

    /// ``parse(_:)`` without the lowercase copy: the name as written, the port, whether the name
    /// is an IPv6 literal. Allocation-free, as the check of every request needs it.
    private static func scan(_ value: String) -> (name: Substring, port: Int?, isIPv6: Bool)? {
        // Byte by byte over the UTF-8 view: `Substring`'s Character-wise search cost a few
        // percent of a GET's CPU here.
        let bytes = value.utf8
        guard !bytes.isEmpty, bytes.count <= 255 + 6 else { return nil }
        var nameStart = bytes.startIndex
        let nameEnd: String.Index, rest: String.Index
        var isIPv6 = false
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            nameStart = bytes.index(after: bytes.startIndex)
            nameEnd = close
            guard nameStart < nameEnd, bytes[nameStart..<nameEnd].allSatisfy(isIPLiteralByte) else { return nil }
            rest = bytes.index(after: close)
            isIPv6 = true
        } else {
            let colon = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            nameEnd = colon
            rest = colon
            guard nameStart < nameEnd, bytes[nameStart..<nameEnd].allSatisfy(isRegisteredNameByte) else { return nil }
        }
        var port: Int?
        if rest != bytes.endIndex {
            guard bytes[rest] == UInt8(ascii: ":") else { return nil }
            let digits = bytes[bytes.index(after: rest)...]
            if !digits.isEmpty {
                guard digits.count <= 5 else { return nil }
                var number = 0
                for digit in digits {
                    guard digit >= 0x30 && digit <= 0x39 else { return nil }
                    number = number * 10 + Int(digit - 0x30)
                }
                guard number <= 65_535 else { return nil }
                port = number
            }
        }
        return (value[nameStart..<nameEnd], port, isIPv6)
    }

    /// Hex digits, `:` and `.` (IPv6 and its embedded IPv4), and what IPvFuture and zone ids add.
    private static func isIPLiteralByte(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "%")
    }

    /// RFC 3986 `reg-name`: unreserved, sub-delims, `%`.
    private static func isRegisteredNameByte(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || "!$&'()*+,;=%".utf8.contains(byte)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
        }
    }
}
