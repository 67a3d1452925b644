import CMicroHTTPD
import Glibc

/// Workaround ``MHDWorkarounds/checkHeaderSectionShape``: libmicrohttpd 0.9.75 parses a head it
/// should refuse and reads it as something else.
package enum HeaderSectionShape {
    /// Whether the request line and header section, as libmicrohttpd parsed them, are free of
    /// what 0.9.75 silently misreads (RFC 9112 §5): obs-folded lines, whitespace before a colon,
    /// field names that are not tokens, control characters in values.
    ///
    /// MHD parses the head in place in the connection's read buffer: it turns each line end and
    /// each field's colon into NUL bytes and hands out pointers into that buffer, and it reports
    /// the head's size (`MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE`, counted from `method`). So in
    /// a well-formed head every field follows the previous one (or the request line) after one
    /// or two NULs (LF or CRLF), its name is followed by one NUL and only blanks up to its
    /// value, and the last value is followed only by the NULs of two line ends. An obs-folded
    /// line breaks that chain (MHD copies the folded name elsewhere, and the folded text sits
    /// between two fields), and so does any byte MHD skipped. Reads never leave the reported head.
    /// Fails closed: a head it cannot measure is refused.
    static func isWellFormed(
        of connection: OpaquePointer, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>
    ) -> Bool {
        let size = cmhd_request_header_size(connection)
        guard size > 0 else { return false }
        let head = UnsafeRawBufferPointer(start: method, count: size)
        let base = Int(bitPattern: method)
        func offset(_ pointer: UnsafePointer<CChar>) -> Int { Int(bitPattern: pointer) - base }
        func isZero(_ range: Range<Int>) -> Bool {
            range.lowerBound >= 0 && range.upperBound <= size && head[range].allSatisfy { $0 == 0 }
        }

        var fields: [RawField] = []
        fields.reserveCapacity(16)  // one allocation for a usual head, not one per doubling
        withUnsafeMutablePointer(to: &fields) { target in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, rawFieldCollector, target)
        }
        var cursor = offset(version) + strlen(version)
        guard cursor >= 0, cursor <= size else { return false }
        for field in fields {
            let name = offset(field.name)
            guard name - cursor == 1 || name - cursor == 2, isZero(cursor..<name) else { return false }
            let nameEnd = name + field.nameCount
            guard nameEnd < size, field.nameCount > 0, head[name..<nameEnd].allSatisfy(isTokenByte), head[nameEnd] == 0
            else { return false }
            let value = offset(field.value)
            guard value > nameEnd, value + field.valueCount <= size,
                  head[(nameEnd + 1)..<value].allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }),
                  head[value..<(value + field.valueCount)].allSatisfy(isFieldValueByte)
            else { return false }
            cursor = value + field.valueCount
        }
        return (2...4).contains(size - cursor) && isZero(cursor..<size)
    }

    /// The same rules for header fields given one by one (the in-memory transport's), where
    /// no line can be folded and no byte skipped: every name a token, every value free of
    /// control characters.
    package static func isWellFormed(_ headers: HTTPHeaders) -> Bool {
        headers.allSatisfy { field in
            !field.name.isEmpty && field.name.utf8.allSatisfy(isTokenByte) && field.value.utf8.allSatisfy(isFieldValueByte)
        }
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// RFC 9110 §5.5: visible characters, blanks and obs-text; no other control character.
    private static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\t") || (byte >= 0x20 && byte != 0x7F)
    }
}


/// One header field as MHD holds it: pointers into its read buffer and lengths.
private struct RawField {
    let name: UnsafePointer<CChar>
    let nameCount: Int
    let value: UnsafePointer<CChar>
    let valueCount: Int
}

private let rawFieldCollector: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
    guard let cls, let key, let value else { return .NO }  // a field without a value cannot be placed: stop
    cls.assumingMemoryBound(to: [RawField].self).pointee.append(
        RawField(name: key, nameCount: keySize, value: value, valueCount: valueSize))
    return .YES
}

