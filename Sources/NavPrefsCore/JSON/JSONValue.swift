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
