/// The name of a profile: the analogue of a UserDefaults suite name, and a path segment of every
/// profile resource (`/v1/profiles/{profile}/...`).
///
/// 1 to 64 characters from `A-Z a-z 0-9 . _ -`, starting with a letter or digit: safe in a URL
/// path without escaping, in a log line and in a file name, and never `.` or `..`.
public struct ProfileName: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let maxLength = 64
    /// The profile that always exists and reads as fresh until written.
    public static let `default` = ProfileName(unchecked: "default")

    public let rawValue: String

    public init(_ text: String) throws(ProfileNameError) {
        switch NameRule(maxLength: Self.maxLength, punctuation: "._-").check(text) {
        case .valid: rawValue = text
        case .empty: throw .empty
        case .tooLong(let length): throw .tooLong(length: length)
        case .badFirstCharacter: throw .badFirstCharacter
        case .badCharacter: throw .badCharacter
        }
    }

    private init(unchecked text: String) { rawValue = text }

    public var isDefault: Bool { self == .default }
    public var description: String { rawValue }

    public static func < (lhs: ProfileName, rhs: ProfileName) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Why a text is not a valid ``ProfileName``.
public enum ProfileNameError: Error, Equatable, CustomStringConvertible {
    case empty
    case tooLong(length: Int)
    case badFirstCharacter
    case badCharacter

    public var description: String {
        switch self {
        case .empty: "a profile name cannot be empty"
        case .tooLong(let length): "a profile name has at most \(ProfileName.maxLength) characters, not \(length)"
        case .badFirstCharacter: "a profile name starts with a letter or a digit"
        case .badCharacter: "a profile name uses only letters, digits, '.', '_' and '-'"
        }
    }
}

/// The shape NavPrefs' names share (profiles, preference keys): ASCII letters and digits plus a
/// few punctuation characters, starting with a letter or digit, bounded in length. Such names
/// need no escaping in a URL path, a log line or a file name.
struct NameRule {
    enum Verdict: Equatable {
        case valid, empty, tooLong(Int), badFirstCharacter, badCharacter
    }

    let maxLength: Int
    let punctuation: String

    func check(_ text: String) -> Verdict {
        let bytes = text.utf8
        guard let first = bytes.first else { return .empty }
        guard bytes.count <= maxLength else { return .tooLong(bytes.count) }
        guard first.isASCIIAlphanumeric else { return .badFirstCharacter }
        // No set: this runs on every request, and the punctuation is two or three bytes.
        let allowed = punctuation.utf8
        return bytes.allSatisfy { $0.isASCIIAlphanumeric || allowed.contains($0) } ? .valid : .badCharacter
    }
}

extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
