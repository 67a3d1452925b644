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
        let values = headers.values(for: "Host")
        switch values.count {
        case 0: return httpVersion == "HTTP/1.0" ? nil : .invalidHost
        case 1: return parse(values[0]) == nil ? .invalidHost : nil
        default: return .invalidHost
        }
    }

    /// Parses `uri-host [ ":" port ]` (RFC 3986 §3.2.2): an IP literal in brackets is the whole
    /// name (`[::1].evil.example` is no host), a registered name holds only unreserved
    /// characters, sub-delimiters and percent-escapes, a port only digits. `nil` when it is not
    /// such a value.
    public static func parse(_ value: String) -> Parsed? {
        var text = Substring(value)
        guard !text.isEmpty, text.utf8.count <= 255 + 6 else { return nil }
        var name: Substring
        var isIPv6 = false
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            name = text[text.index(after: text.startIndex)..<close]
            guard !name.isEmpty, name.utf8.allSatisfy(isIPLiteralByte) else { return nil }
            text = text[text.index(after: close)...]
            isIPv6 = true
        } else {
            let colon = text.firstIndex(of: ":") ?? text.endIndex
            name = text[..<colon]
            text = text[colon...]
            guard !name.isEmpty, name.utf8.allSatisfy(isRegisteredNameByte) else { return nil }
        }
        var port: Int?
        if !text.isEmpty {
            guard text.first == ":" else { return nil }
            let digits = text.dropFirst()
            if !digits.isEmpty {
                guard digits.utf8.count <= 5, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(digits),
                      number <= 65_535 else { return nil }
                port = number
            }
        }
        return Parsed(name: name.lowercased(), port: port, isIPv6Literal: isIPv6)
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
