/// Writes JSON text. Numbers use Swift's shortest round-trip form (`0.1`, not Jansson's
/// `0.10000000000000001`), and a number that is whole keeps its `.0` so it reads back as a number.
public enum JSONWriter {
    /// Appends `value` to `output` as compact JSON.
    public static func write(_ value: JSONValue, into output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .integer(let number): output += String(number)
        case .number(let number): write(number: number, into: &output)
        case .string(let text): write(string: text, into: &output)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                write(item, into: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (index, member) in object.members.enumerated() {
                if index > 0 { output += "," }
                write(string: member.key, into: &output)
                output += ":"
                write(member.value, into: &output)
            }
            output += "}"
        }
    }

    /// A finite number in shortest round-trip form; JSON has no NaN or infinity, so those become `null`.
    public static func write(number: Double, into output: inout String) {
        guard number.isFinite else { output += "null"; return }
        output += number.description
    }

    /// Whether `string` holds a quote, a backslash or a control character.
    public static func needsEscaping(_ string: String) -> Bool {
        let scan: (UnsafeBufferPointer<UInt8>) -> Bool = { bytes in
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            return false
        }
        return string.utf8.withContiguousStorageIfAvailable(scan)
            ?? string.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }

    /// A string literal with the escapes RFC 8259 requires (quote, backslash, control characters).
    public static func write(string: String, into output: inout String) {
        // Most strings need no escape: append them whole (a hot path of every response and log line).
        if !needsEscaping(string) {
            output += "\""
            output += string
            output += "\""
            return
        }
        output += "\""
        var pendingStart = string.unicodeScalars.startIndex
        var index = pendingStart
        let scalars = string.unicodeScalars
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let escape: String? = switch scalar {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            case "\u{08}": "\\b"
            case "\u{0C}": "\\f"
            default: scalar.value < 0x20 ? "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16) : nil
            }
            if let escape {
                output.unicodeScalars.append(contentsOf: scalars[pendingStart..<index])
                output += escape
                pendingStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        output.unicodeScalars.append(contentsOf: scalars[pendingStart..<scalars.endIndex])
        output += "\""
    }
}

extension JSONValue {
    /// Compact JSON text.
    public var jsonText: String {
        var output = ""
        JSONWriter.write(self, into: &output)
        return output
    }
}

/// Builds one JSON object field by field, in order, for responses and event payloads whose
/// shape is fixed (faster than Codable, see bench/README.md).
public struct JSONObjectBuilder: Sendable {
    private var text = "{"
    private var empty = true

    public init() {}

    private mutating func key(_ name: String) {
        if !empty { text += "," }
        empty = false
        JSONWriter.write(string: name, into: &text)
        text += ":"
    }

    public mutating func add(_ name: String, _ value: String) {
        key(name)
        JSONWriter.write(string: value, into: &text)
    }

    public mutating func add(_ name: String, _ value: Int64) {
        key(name)
        text += String(value)
    }

    public mutating func add(_ name: String, _ value: Int) { add(name, Int64(value)) }

    public mutating func add(_ name: String, _ value: Double) {
        key(name)
        JSONWriter.write(number: value, into: &text)
    }

    public mutating func add(_ name: String, _ value: Bool) {
        key(name)
        text += value ? "true" : "false"
    }

    public mutating func add(_ name: String, _ value: JSONValue) {
        key(name)
        JSONWriter.write(value, into: &text)
    }

    /// Adds a field whose value is already JSON text.
    public mutating func add(_ name: String, json: String) {
        key(name)
        text += json
    }

    public mutating func addNull(_ name: String) {
        key(name)
        text += "null"
    }

    /// The finished object.
    public var json: String { text + "}" }
}
