/// The request-framing rules libmicrohttpd 0.9.75 does not enforce itself, checked once the
/// headers are in and before the body is read (RFC 9112 §6.1 and §6.3), plus the declared-size
/// check of the body limit.
enum FramingCheck {
    /// What the header fields say about the body.
    enum Framing: Equatable {
        case none
        case length(Int)
        case chunked
    }

    /// The framing, or why the request must be refused before its body is read.
    static func framing(of headers: HTTPHeaders) -> Result<Framing, RefusalReason> {
        let hasLength = headers.contains(HeaderName.contentLength)
        let hasCoding = headers.contains(HeaderName.transferEncoding)
        guard hasLength || hasCoding else { return .success(.none) }  // most requests: no allocation
        if hasLength && hasCoding { return .failure(.init(.contentLengthWithTransferEncoding)) }
        if hasCoding {
            // libmicrohttpd decodes only a lone `chunked`; with anything else it would read the
            // body as "length unknown" and wait for a close that a keep-alive client never sends.
            let codings = headers.values(for: HeaderName.transferEncoding)
            guard codings.count == 1, let only = codings.first,
                  String(Substring(only).trimmingASCIISpaces()).equalsIgnoringASCIICase("chunked")
            else { return .failure(.init(.unsupportedTransferEncoding)) }
            return .success(.chunked)
        }
        // The usual case, one field with one member, read without collecting anything.
        if headers.count(of: "Content-Length") == 1, let value = headers["Content-Length"], !value.utf8.contains(UInt8(ascii: ",")) {
            let length = Substring(value).trimmingASCIISpaces()
            guard !length.isEmpty, length.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return .failure(.init(.invalidContentLength)) }
            return .success(.length(Int(length) ?? Int.max))
        }
        // Every field, and every comma-separated member of one, must state the same length.
        let members = headers.listMembers(for: HeaderName.contentLength, keepingEmpty: true)
        guard let first = members.first, members.allSatisfy({ $0 == first }),
              !first.isEmpty, first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return .failure(.init(.invalidContentLength)) }
        // A number too long for Int is certainly too large for any body limit.
        return .success(.length(Int(first) ?? Int.max))
    }

    /// Whether the client waits for `100 Continue` before sending its body.
    static func expectsContinue(_ headers: HTTPHeaders) -> Bool {
        headers[HeaderName.expect].map { String(Substring($0).trimmingASCIISpaces()).equalsIgnoringASCIICase("100-continue") } ?? false
    }
}

/// A refusal found by a check, as a value `Result` can carry.
struct RefusalReason: Error, Equatable {
    let rejection: HTTPRejection
    init(_ rejection: HTTPRejection) { self.rejection = rejection }
}

extension Substring {
    public func trimmingASCIISpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
