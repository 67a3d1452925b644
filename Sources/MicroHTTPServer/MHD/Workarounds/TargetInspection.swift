/// What the server makes of a request target as sent, before libmicrohttpd splits and decodes
/// it (workarounds ``MHDWorkarounds/refuseEscapedNUL`` and ``MHDWorkarounds/dropRefusedArguments``,
/// plus the limits MHD has not: length, number of arguments, and the bytes a target may hold).
///
/// Pure, so that the in-memory transport judges targets exactly as the socket server does.
package struct TargetInspection: Sendable, Equatable {
    /// The path as sent, still percent-encoded, without the query.
    package var rawPath: String
    package var rejection: HTTPRejection?
    /// Where the query's arguments start (after the `?`), when the target is refused and has
    /// some: the URI log callback ends the string there, so MHD parses none of them.
    var argumentsToDrop: Int?

    package static func inspect(
        _ bytes: UnsafeRawBufferPointer, maxTargetBytes: Int, maxQueryArguments: Int,
        workarounds: MHDWorkarounds = .all
    ) -> TargetInspection {
        let question = bytes.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = String(decoding: bytes[..<(question ?? bytes.count)], as: UTF8.self)
        var rejection: HTTPRejection?
        if bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            // RFC 9112 §3.2: no whitespace or control character in a target. MHD, with its own
            // strict checks off (see HostField), would take `/a b` as the target `/a b`.
            rejection = .invalidRequestTarget
        } else if workarounds.contains(.refuseEscapedNUL), containsEscapedNUL(bytes) {
            // MHD would cut the path (or argument) at the NUL and hand on a different resource.
            rejection = .invalidRequestTarget
        } else if bytes.count > maxTargetBytes {
            rejection = .uriTooLong(limit: maxTargetBytes)
        }
        var argumentsToDrop: Int?
        if let question, question + 1 < bytes.count {
            var arguments = 1
            for byte in bytes[(question + 1)...] where byte == UInt8(ascii: "&") { arguments += 1 }
            if arguments > maxQueryArguments, rejection == nil {
                rejection = .tooManyQueryArguments(limit: maxQueryArguments)
            }
            // A refused request needs none of its arguments, and a long target's arguments can
            // fill the pool as surely as many short ones (a 3 KB target with 47 of them did, at
            // the default 6 KiB: no answer at all).
            if rejection != nil, workarounds.contains(.dropRefusedArguments) { argumentsToDrop = question + 1 }
        }
        return TargetInspection(rawPath: rawPath, rejection: rejection, argumentsToDrop: argumentsToDrop)
    }

    private static func containsEscapedNUL(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 3 else { return false }
        for index in 0..<(bytes.count - 2)
        where bytes[index] == UInt8(ascii: "%") && bytes[index + 1] == UInt8(ascii: "0") && bytes[index + 2] == UInt8(ascii: "0") {
            return true
        }
        return false
    }
}
