public import NavPrefsCore

/// Why a body is not acceptable JSON.
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
    /// Jansson's explanation, for example "duplicate object key near '\"by\"'".
    public let message: String
    /// 1-based position of the problem, when known.
    public let line: Int
    public let column: Int
    /// The limit an object of the text went beyond (``JSONValue/maxObjectMembers``), when that
    /// is the problem: the text is JSON, but more than this service takes.
    public let exceededMemberLimit: Int?

    public init(message: String, line: Int, column: Int, exceededMemberLimit: Int? = nil) {
        self.message = message
        self.line = line
        self.column = column
        self.exceededMemberLimit = exceededMemberLimit
    }

    public var description: String {
        line > 0 ? "\(message) (line \(line), column \(column))" : message
    }
}

extension JSONValue {
    /// The most members one object may have. Above what any value the service stores can hold
    /// (a value is at most 64 KiB of JSON, and the shortest member, `"":0,`, takes 5 bytes: at
    /// most 13,107), so only a body built to cost the server is refused by it.
    public static let maxObjectMembers = 16_384

    /// Parses one JSON text strictly (RFC 8259): valid UTF-8, no trailing data, no duplicate
    /// object keys, no NUL in strings, integers within Int64, finite numbers, none so small
    /// that it would read as 0 (`1e-400`), and no object with more than `maxObjectMembers`
    /// members. Linear in the text's size.
    public static func parse(_ bytes: [UInt8], maxObjectMembers: Int = JSONValue.maxObjectMembers) throws(JSONParseError) -> JSONValue {
        try JanssonDecoder.decode(bytes, maxObjectMembers: maxObjectMembers)
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}
