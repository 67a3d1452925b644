public import NavPrefsCore

/// Why a body is not acceptable JSON.
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
    /// Jansson's explanation, for example "duplicate object key near '\"by\"'".
    public let message: String
    /// 1-based position of the problem, when known.
    public let line: Int
    public let column: Int

    public var description: String {
        line > 0 ? "\(message) (line \(line), column \(column))" : message
    }
}

extension JSONValue {
    /// Parses one JSON text strictly (RFC 8259): valid UTF-8, no trailing data, no duplicate
    /// object keys, no NUL in strings, integers within Int64, finite numbers, and none so small
    /// that it would read as 0 (`1e-400`).
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try JanssonDecoder.decode(bytes)
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}
