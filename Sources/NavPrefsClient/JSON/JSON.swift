import Foundation

/// A JSON value as NavPrefs stores it: integers stay integers (`1` is not `1.0`), numbers with
/// a fraction or an exponent stay numbers, object members keep their order.
///
/// Every preference value is one of these (anything `UserDefaults` can hold that JSON can
/// say: no `Data`, no `Date`, no `nil`), and so are the bodies and answers the library handles
/// without a type of their own (a navigation bar, a gesture evaluation). Literals work where a
/// value is expected: `try await preferences.set(5, forKey: "volume")`, `set("dark", ...)`,
/// `set(["a", "b"], ...)`, `set(["x": 1], ...)`.
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A finite double.
    case number(Double)
    case string(String)
    case array([JSON])
    /// Members in order; names are unique.
    case object([Member])

    /// One member of an object.
    public struct Member: Sendable, Hashable {
        public let name: String
        public let value: JSON

        public init(_ name: String, _ value: JSON) {
            self.name = name
            self.value = value
        }
    }

    /// Member `name` of an object (`nil` for anything else, or when absent).
    public subscript(name: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }

    /// Element `index` of an array.
    public subscript(index: Int) -> JSON? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var int64Value: Int64? {
        switch self {
        case .integer(let number): return number
        case .number(let number) where number.rounded(.towardZero) == number && abs(number) < 0x1p63: return Int64(number)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .integer(let number): return Double(number)
        case .number(let number): return number
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    public var arrayValue: [JSON]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The members of an object, by name.
    public var objectValue: [String: JSON]? {
        guard case .object(let members) = self else { return nil }
        return Dictionary(members.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether `null` appears anywhere in the value (UserDefaults can store none).
    public var containsNull: Bool {
        switch self {
        case .null: true
        case .array(let elements): elements.contains { $0.containsNull }
        case .object(let members): members.contains { $0.value.containsNull }
        case .bool, .integer, .number, .string: false
        }
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(elements.map { Member($0.0, $0.1) }) }
}
