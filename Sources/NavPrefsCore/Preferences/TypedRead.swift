/// The typed getters of UserDefaults, over JSON values: `string(forKey:)`, `integer(forKey:)`,
/// `float(forKey:)` and `bool(forKey:)`, with their documented coercions and absent-key
/// results (semantics P-1..P-4).
public enum PreferenceType: String, Sendable, CaseIterable {
    case string, integer, float, bool

    /// What the getter answers for `value` (`nil`: the key has no value in any layer).
    public func read(_ value: JSONValue?) -> JSONValue {
        switch self {
        case .integer: .integer(Self.integer(value))
        case .float: .number(Self.float(value))
        case .bool: .bool(Self.bool(value))
        case .string: Self.string(value).map(JSONValue.string) ?? .null
        }
    }

    /// P-1/P-2: absent is 0; `true`/`false` are 1/0; a number becomes the greatest integer not
    /// above it (Apple: "2.67 becomes 2", so -2.67 becomes -3); a numeric string its value;
    /// anything else 0. Results beyond Int64 saturate (Apple's Int would not hold them either).
    static func integer(_ value: JSONValue?) -> Int64 {
        switch value {
        case .integer(let number)?: return number
        case .number(let number)?: return saturatingInt64(number.rounded(.down))
        case .bool(let flag)?: return flag ? 1 : 0
        case .string(let text)?:
            let trimmed = text.trimmingWhitespace()
            if let number = Int64(trimmed) { return number }
            if let number = Double(numericText: trimmed) { return saturatingInt64(number.rounded(.down)) }
            return 0
        default: return 0
        }
    }

    /// P-1/P-2: absent is 0.0; integers and numbers as they are; `true`/`false` 1.0/0.0;
    /// a numeric string its value ("123.4" is 123.4); anything else 0.0.
    static func float(_ value: JSONValue?) -> Double {
        switch value {
        case .integer(let number)?: return Double(number)
        case .number(let number)?: return number
        case .bool(let flag)?: return flag ? 1 : 0
        case .string(let text)?: return Double(numericText: text.trimmingWhitespace()) ?? 0
        default: return 0
        }
    }

    /// P-1/P-3: absent is false; 1, 1.0, "true", "YES" and "1" are true (Apple's documented
    /// truthy values); every other present value is false (our decision for the rest).
    static func bool(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(let flag)?: flag
        case .integer(let number)?: number == 1
        case .number(let number)?: number == 1
        case .string(let text)?: text == "true" || text == "YES" || text == "1"
        default: false
        }
    }

    /// P-1/P-4: absent is null; a string as it is; a number as text (123 is "123", 2.5 is
    /// "2.5", a whole 2.0 is "2" as NSNumber writes it); a boolean "1" or "0" (NSNumber's
    /// text for a boolean); arrays, objects and null are null.
    static func string(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .integer(let number)?: String(number)
        case .number(let number)?:
            number.rounded(.towardZero) == number && abs(number) < 1e15 ? String(Int64(number)) : number.description
        case .bool(let flag)?: flag ? "1" : "0"
        default: nil
        }
    }

    private static func saturatingInt64(_ number: Double) -> Int64 {
        if number >= 0x1p63 { return .max }
        if number < -0x1p63 { return .min }
        return Int64(number)
    }
}

extension Double {
    /// A decimal number in plain text ("12", "-1.5", "2e3"); not "nan", "inf" or hex forms,
    /// which `Double(String)` would also accept.
    init?(numericText text: String) {
        guard !text.isEmpty, text.utf8.allSatisfy({ "0123456789+-.eE".utf8.contains($0) }),
              let number = Double(text), number.isFinite else { return nil }
        self = number
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
