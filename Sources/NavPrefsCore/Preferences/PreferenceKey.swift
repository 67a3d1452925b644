/// The name of a stored preference: a UserDefaults key, also the last path segment of
/// `/v1/profiles/{profile}/preferences/{key}` (percent-encoded there: `a%20b`, `a%2Fb`).
///
/// Any text Foundation accepts as a key (it accepts every string, the empty one too), except
/// what a service cannot carry faithfully: the empty key (it has no path segment), a NUL (C
/// strings and logs would cut it), and more than ``maxLength`` bytes of UTF-8. Keys compare by
/// their UTF-8 bytes, as Foundation compares them: `"é"` and `"e\u{301}"` are two keys, although
/// Swift's `==` calls the strings equal.
public struct PreferenceKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The longest key, in bytes of UTF-8.
    public static let maxLength = 1_024

    public let rawValue: String

    public init(_ text: String) throws(PreferenceKeyError) {
        let bytes = text.utf8
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= Self.maxLength else { throw .tooLong(length: bytes.count) }
        guard !bytes.contains(0) else { throw .containsNUL }
        rawValue = text
    }

    init(wellKnown text: StaticString) {
        rawValue = text.description
    }

    public var description: String { rawValue }

    public static func == (lhs: PreferenceKey, rhs: PreferenceKey) -> Bool {
        lhs.rawValue.utf8.elementsEqual(rhs.rawValue.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        for byte in rawValue.utf8 { hasher.combine(byte) }
    }

    /// Byte order, as SQLite and PostgreSQL (`COLLATE "C"`) sort keys.
    public static func < (lhs: PreferenceKey, rhs: PreferenceKey) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }
}

/// Why a text is not a valid ``PreferenceKey``.
public enum PreferenceKeyError: Error, Equatable, CustomStringConvertible {
    case empty
    case tooLong(length: Int)
    case containsNUL

    public var description: String {
        switch self {
        case .empty: "a preference key cannot be empty"
        case .tooLong(let length): "a preference key has at most \(PreferenceKey.maxLength) bytes of UTF-8, not \(length)"
        case .containsNUL: "a preference key cannot contain NUL (U+0000)"
        }
    }
}
