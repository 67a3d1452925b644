/// The request-framing rules libmicrohttpd 0.9.75 does not enforce itself, checked once the
/// headers are in (RFC 9112 §6.1 and §6.3), plus the declared-size check of the body limit.
enum FramingCheck {
    enum Verdict: Equatable {
        case acceptable
        /// Refuse; `immediately` answers before the body is read (and MHD then closes).
        case reject(RequestRejection, immediately: Bool)
    }

    static func inspect(_ headers: HTTPHeaders, maxBodyBytes: Int) -> Verdict {
        guard headers.contains("Content-Length") else { return .acceptable }  // most requests: no allocation
        let declared = headers.values(for: "Content-Length")
        if headers.contains("Transfer-Encoding") {
            return .reject(.contentLengthWithTransferEncoding, immediately: true)
        }
        // Every field, and every comma-separated member of one, must state the same length.
        let members = declared.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingASCIISpaces() }
        guard let first = members.first, members.allSatisfy({ $0 == first }),
              !first.isEmpty, first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return .reject(.invalidContentLength, immediately: true) }
        // A number too long for Int is certainly too large for any body limit.
        let length = Int(first) ?? Int.max
        if length > maxBodyBytes {
            let expectsContinue = headers["Expect"]?.equalsIgnoringASCIICase("100-continue") ?? false
            return .reject(.payloadTooLarge(limit: maxBodyBytes), immediately: expectsContinue)
        }
        return .acceptable
    }
}

extension Substring {
    func trimmingASCIISpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
