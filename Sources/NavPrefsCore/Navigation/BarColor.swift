/// A color as clients name it: `#RRGGBB` or `#RRGGBBAA` (hex, either case), or a named color
/// such as `white` or `systemBrown` (`UIColor` class properties; 1 to 64 of `A-Z a-z 0-9 . _ -`).
/// The service never renders, so it keeps the text and only checks its shape.
public struct BarColor: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    /// `nil` when `text` is neither a hex color nor a color name.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        if bytes.first == UInt8(ascii: "#") {
            let digits = bytes.dropFirst()
            guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isASCIIHexDigit) else { return nil }
        } else {
            guard NameRule(maxLength: 64, punctuation: "._-").check(text) == .valid else { return nil }
        }
        rawValue = text
    }

    public var description: String { rawValue }

    public var json: JSONValue { .string(rawValue) }

    static func decode(_ value: JSONValue, at path: String) throws(NavigationDecodingError) -> BarColor {
        let text = try MemberReader.string(value, at: path)
        guard let color = BarColor(text) else {
            throw NavigationDecodingError(
                path: path, problem: .invalidValue(##"a color is "#RRGGBB", "#RRGGBBAA" or a color name such as "white""##))
        }
        return color
    }
}

extension UInt8 {
    var isASCIIHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
