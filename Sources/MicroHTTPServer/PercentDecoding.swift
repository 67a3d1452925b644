/// Percent-decoding of one path segment or query component (RFC 3986 §2.1), the only decoder of
/// the server and its applications: `%2F` stays inside its segment because callers split first.
public enum PercentDecoding {
    /// `bytes` with their `%XX` escapes decoded, if every escape is complete, none decodes to
    /// NUL (which C code on the way would read as the end) and the result is UTF-8; else `nil`.
    /// The common case, no `%` at all, costs one validation pass and no copy of the bytes.
    @inlinable  // specialised in each caller (the router runs it per parameter of every request)
    public static func decode(_ bytes: some Collection<UInt8>) -> String? {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(validating: bytes, as: UTF8.self) }
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
            guard index != bytes.endIndex, let high = hexValue(bytes[index]) else { return nil }
            bytes.formIndex(after: &index)
            guard index != bytes.endIndex, let low = hexValue(bytes[index]) else { return nil }
            bytes.formIndex(after: &index)
            let value = high << 4 | low
            guard value != 0 else { return nil }
            decoded.append(value)
        }
        return String(validating: decoded, as: UTF8.self)
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
