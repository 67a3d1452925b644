/// The identity of a navigation session: 128 random bits as 32 lowercase hex digits.
///
/// Unguessable, so that knowing one session's URL tells nothing about another's: the bits come
/// from `SystemRandomNumberGenerator`, which on Linux reads the kernel's CSPRNG (`getrandom`).
public struct SessionID: Sendable, Hashable, CustomStringConvertible {
    public static let length = 32

    public let rawValue: String

    /// A session id as a client sends it back (in a URL path).
    public init(_ text: String) throws(SessionIDError) {
        guard text.utf8.count == Self.length,
              text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { throw SessionIDError(text: String(text.prefix(80))) }
        rawValue = text
    }

    private init(unchecked text: String) { rawValue = text }

    /// A new id, 128 bits from the system's cryptographic generator.
    public static func random() -> SessionID {
        var generator = SystemRandomNumberGenerator()
        let bits = [generator.next(), generator.next()] as [UInt64]
        let digits = bits.map { word -> String in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.utf8.count) + hex
        }
        return SessionID(unchecked: digits.joined())
    }

    public var description: String { rawValue }
}

/// A text that is not a ``SessionID``.
public struct SessionIDError: Error, Hashable, Sendable, CustomStringConvertible {
    public let text: String
    public var description: String { "'\(text)' is not a session id (32 lowercase hexadecimal digits)" }
}
