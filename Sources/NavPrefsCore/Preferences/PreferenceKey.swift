/// The name of a stored preference (a UserDefaults key), also a path segment of
/// `/v1/profiles/{profile}/preferences/{key}`.
///
/// 1 to 128 characters from `A-Z a-z 0-9 . _ - :`, starting with a letter or digit: every
/// key the seeds use (`numIndex`, `fontSizekey`), reverse-DNS names (`com.example.flag`),
/// and nothing that needs escaping in a URL path or a log line.
public struct PreferenceKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let maxLength = 128

    public let rawValue: String

    public init(_ text: String) throws(PreferenceKeyError) {
        switch NameRule(maxLength: Self.maxLength, punctuation: "._-:").check(text) {
        case .valid: rawValue = text
        case .empty: throw .empty
        case .tooLong(let length): throw .tooLong(length: length)
        case .badFirstCharacter: throw .badFirstCharacter
        case .badCharacter: throw .badCharacter
        }
    }

    init(wellKnown text: StaticString) {
        rawValue = text.description
    }

    public var description: String { rawValue }

    public static func < (lhs: PreferenceKey, rhs: PreferenceKey) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Why a text is not a valid ``PreferenceKey``.
public enum PreferenceKeyError: Error, Equatable, CustomStringConvertible {
    case empty
    case tooLong(length: Int)
    case badFirstCharacter
    case badCharacter

    public var description: String {
        switch self {
        case .empty: "a preference key cannot be empty"
        case .tooLong(let length): "a preference key has at most \(PreferenceKey.maxLength) characters, not \(length)"
        case .badFirstCharacter: "a preference key starts with a letter or a digit"
        case .badCharacter: "a preference key uses only letters, digits, '.', '_', '-' and ':'"
        }
    }
}
