/// Percent-decoding of one path segment or query component (RFC 3986 §2.1), the only decoder of
/// the server and its applications: `%2F` stays inside its segment because callers split first.
public enum PercentDecoding {
    /// `bytes` with their `%XX` escapes decoded, if every escape is complete, none decodes to
    /// NUL (which C code on the way would read as the end) and the result is UTF-8; else `nil`.
    /// The common case, no `%` at all, costs one validation pass and no copy of the bytes.
    @inlinable  // specialised in each caller (the router runs it per parameter of every request)
    public static func decode(_ bytes: some Collection<UInt8>) -> String? {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(validating: bytes, as: UTF8.self) }
        guard let decoded = unescape(bytes, strict: true) else { return nil }
        return String(validating: decoded, as: UTF8.self)
    }

    /// `bytes` decoded as libmicrohttpd 0.9.75 decodes a request's path, or (`plusAsSpace`) a
    /// query argument's name or value, for the in-memory transport (`InMemoryHTTPTransport`)
    /// to hand handlers what the socket server hands them: complete `%XX` escapes decoded, an
    /// incomplete one kept as sent, a `+` in a query a space, and bytes that are not UTF-8
    /// repaired as `String(cString:)` repairs them. (`%00` never gets this far: ``TargetInspection``.)
    public static func decodeAsLibrary(_ bytes: some Collection<UInt8>, plusAsSpace: Bool) -> String {
        let spaced = plusAsSpace ? bytes.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 } : Array(bytes)
        return String(decoding: unescape(spaced, strict: false) ?? spaced, as: UTF8.self)
    }

    /// The escapes of `bytes` decoded. An incomplete escape, or one that decodes to NUL, is
    /// `nil` when `strict`, else kept as it is.
    @inlinable
    static func unescape(_ bytes: some Collection<UInt8>, strict: Bool) -> [UInt8]? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            bytes.formIndex(after: &index)
            guard byte == UInt8(ascii: "%") else {
                decoded.append(byte)
                continue
            }
            var next = index
            guard next != bytes.endIndex, let high = hexValue(bytes[next]) else {
                if strict { return nil } else { decoded.append(byte); continue }
            }
            bytes.formIndex(after: &next)
            guard next != bytes.endIndex, let low = hexValue(bytes[next]) else {
                if strict { return nil } else { decoded.append(byte); continue }
            }
            bytes.formIndex(after: &next)
            let value = high << 4 | low
            if value == 0, strict { return nil }
            decoded.append(value)
            index = next
        }
        return decoded
    }

    @usableFromInline
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
