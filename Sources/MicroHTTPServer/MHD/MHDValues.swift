import CMicroHTTPD
import Glibc

/// Reads request values (headers, query arguments, the peer address) out of a connection.
enum MHDValues {
    static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
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

    // MARK: - The request target as sent

    /// What the server makes of a request target before libmicrohttpd splits and decodes it.
    struct TargetInspection {
        var rawPath: String
        var rejection: HTTPRejection?
    }

    /// Inspects the target MHD's URI log callback hands over (still encoded, query included) and,
    /// when it refuses the target (too long, too many query arguments, `%00`), keeps MHD from
    /// parsing its arguments at all.
    ///
    /// Why write into MHD's buffer: MHD 0.9.75 stores every argument in the connection's small
    /// pool and, once that is full, logs a warning per argument and answers nothing. It calls
    /// this callback on the request line in its read buffer after finding the `?` and before
    /// parsing what follows, so ending the string right after the `?` leaves it no arguments.
    static func inspectTarget(
        _ uri: UnsafePointer<CChar>, maxTargetBytes: Int, maxQueryArguments: Int
    ) -> TargetInspection {
        let length = strlen(uri)
        let bytes = UnsafeRawBufferPointer(start: uri, count: length)
        let question = bytes.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = String(decoding: bytes[..<(question ?? length)], as: UTF8.self)
        var rejection: HTTPRejection?
        if containsEscapedNUL(bytes) {
            // MHD would cut the path (or argument) at the NUL and hand on a different resource.
            rejection = .invalidRequestTarget
        } else if length > maxTargetBytes {
            rejection = .uriTooLong(limit: maxTargetBytes)
        }
        if let question, question + 1 < length {
            var arguments = 1
            for byte in bytes[(question + 1)...] where byte == UInt8(ascii: "&") { arguments += 1 }
            if arguments > maxQueryArguments, rejection == nil {
                rejection = .tooManyQueryArguments(limit: maxQueryArguments)
            }
            // A refused request needs none of its arguments, and a long target's arguments can
            // fill the pool as surely as many short ones (a 3 KB target with 47 of them did, at
            // the default 6 KiB: no answer at all), so MHD gets none of them to parse.
            if rejection != nil { UnsafeMutablePointer(mutating: uri)[question + 1] = 0 }
        }
        return TargetInspection(rawPath: rawPath, rejection: rejection)
    }

    private static func containsEscapedNUL(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 3 else { return false }
        for index in 0..<(bytes.count - 2)
        where bytes[index] == UInt8(ascii: "%") && bytes[index + 1] == UInt8(ascii: "0") && bytes[index + 2] == UInt8(ascii: "0") {
            return true
        }
        return false
    }

    // MARK: - The header section as received

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
    static func headerSectionIsWellFormed(
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
