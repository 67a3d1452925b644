/// The identity of a screen within a navigation session: what UIKit compares by object identity
/// (`===` on view controllers), NavPrefs compares by this name.
///
/// 1 to 64 characters from `A-Z a-z 0-9 . _ -`, starting with a letter or digit (the rule of
/// ``ProfileName``), so an id can sit in a URL path (`.../pop-to/{id}`), an event and a log line
/// without escaping.
public struct ScreenID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let maxLength = 64

    public let rawValue: String

    public init(_ text: String) throws(ScreenIDError) {
        switch NameRule(maxLength: Self.maxLength, punctuation: "._-").check(text) {
        case .valid: rawValue = text
        case .empty: throw .empty
        case .tooLong(let length): throw .tooLong(length: length)
        case .badFirstCharacter: throw .badFirstCharacter
        case .badCharacter: throw .badCharacter
        }
    }

    public var description: String { rawValue }

    public static func < (lhs: ScreenID, rhs: ScreenID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Why a text is not a valid ``ScreenID``.
public enum ScreenIDError: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(length: Int)
    case badFirstCharacter
    case badCharacter

    public var description: String {
        switch self {
        case .empty: "a screen id cannot be empty"
        case .tooLong(let length): "a screen id has at most \(ScreenID.maxLength) characters, not \(length)"
        case .badFirstCharacter: "a screen id starts with a letter or a digit"
        case .badCharacter: "a screen id uses only letters, digits, '.', '_' and '-'"
        }
    }
}
