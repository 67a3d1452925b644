/// A JSON value that keeps what clients care about: integers stay integers (`1` is not `1.0`),
/// numbers with a fraction or exponent stay numbers, and object members keep their order.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// An integer literal within Int64.
    case integer(Int64)
    /// A literal with a fraction or an exponent (`1.0`, `2.5`, `1e3`); always finite.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The JSON type name used in error messages and schemas.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The value as an Int64 when it is an integer, or a number with no fraction within range:
    /// JSON Schema treats `1104.0` as an integer, and clients (and schemathesis) send such values.
    public var integralValue: Int64? {
        switch self {
        case .integer(let value):
            return value
        case .number(let value):
            guard value.rounded(.towardZero) == value, value >= -0x1p63, value < 0x1p63 else { return nil }
            return Int64(value)
        default:
            return nil
        }
    }

    /// The value as a Double when it is an integer or a number.
    public var numericValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }
}

/// A JSON object: members in the order given, keys unique (the parser rejects duplicates).
/// Two objects are equal when they have the same members, whatever their order.
///
/// Member names compare by their UTF-8 bytes, as RFC 8259 §8.3 and Foundation compare them:
/// `"é"` and `"e\u{301}"` are two members, although Swift's `==` calls the strings equal.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Member = (key: String, value: JSONValue)

    public private(set) var members: [Member]

    public init() { members = [] }

    /// Members in order; a repeated key replaces the earlier value in place.
    public init(_ members: [(String, JSONValue)]) {
        self.members = []
        for (key, value) in members { self[key] = value }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }

    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key.utf8.elementsEqual(key.utf8) }?.value }
        set {
            if let index = members.firstIndex(where: { $0.key.utf8.elementsEqual(key.utf8) }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key: key, value: newValue))
            }
        }
    }

    public var keys: [String] { members.map(\.key) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.count == rhs.count && lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent, to agree with ==.
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            for byte in member.key.utf8 { memberHasher.combine(byte) }
            memberHasher.combine(member.value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(combined)
        hasher.combine(count)
    }
}
