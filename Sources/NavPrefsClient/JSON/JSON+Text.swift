public import Foundation

extension JSON {
    /// The value as compact JSON text. Doubles are written as Swift prints them (`2.0`, `0.1`,
    /// `1e+20`), which is how the server keeps them apart from integers.
    public var jsonText: String {
        var text = ""
        write(into: &text)
        return text
    }

    private func write(into text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .integer(let number): text += String(number)
        case .number(let number):
            // Non-finite doubles have no JSON form; the initializers never make one.
            text += number.isFinite ? "\(number)" : "null"
        case .string(let string): Self.write(string: string, into: &text)
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.write(into: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { text += "," }
                Self.write(string: member.name, into: &text)
                text += ":"
                member.value.write(into: &text)
            }
            text += "}"
        }
    }

    private static func write(string: String, into text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// Parses JSON text (RFC 8259): one value, with nothing but whitespace around it.
    /// - Throws: ``NavPrefsError/invalidResponse(_:)`` for text that is not JSON.
    public init(parsing text: String) throws(NavPrefsError) {
        var parser = JSONParser(Array(text.utf8))
        self = try parser.document()
    }

    /// Parses JSON bytes (an HTTP body).
    public init(parsing data: Data) throws(NavPrefsError) {
        var parser = JSONParser(Array(data))
        self = try parser.document()
    }
}
