/// A preference key as the server compares it: by its UTF-8 bytes.
///
/// Swift's `String` compares and hashes by canonical equivalence, so `café` written NFC
/// (`caf\u{E9}`) and NFD (`cafe\u{301}`) are one key of a `[String: ...]`; the server keeps two
/// (docs/api.md, "keys compare by their bytes"), as UserDefaults does on Apple platforms. The
/// mirror keys its state by this, so both spellings stay two values through writes, reads,
/// events and the outbox.
struct KeyBytes: Hashable, Comparable, Sendable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (lhs: KeyBytes, rhs: KeyBytes) -> Bool { lhs.string.sameBytes(as: rhs.string) }

    func hash(into hasher: inout Hasher) {
        for byte in string.utf8 { hasher.combine(byte) }
        hasher.combine(string.utf8.count)
    }

    /// Byte order, as the server lists keys.
    static func < (lhs: KeyBytes, rhs: KeyBytes) -> Bool { lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8) }
}

extension String {
    /// Whether both texts are the same UTF-8 bytes (`==` answers whether they are canonically equivalent).
    func sameBytes(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}
