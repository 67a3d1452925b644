import NavPrefsCore

/// Numbers too small for a double: Jansson (like `strtod`) reads `1e-400` as `0.0` without a
/// word, and the value stored would not be the one sent. A body holding one is refused; finding
/// it takes the text, so it is looked for only when the parsed value holds a zero real.
enum NumberUnderflow {
    /// The first number literal of `bytes` (outside strings) that names a non-zero value but
    /// reads as zero; `nil` when there is none.
    static func firstLiteral(in bytes: [UInt8], parsed: JSONValue) -> String? {
        guard holdsZeroReal(parsed) else { return nil }
        var index = 0, inString = false, escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                index += 1
                continue
            }
            let start = index
            while index < bytes.count, Self.isNumberByte(bytes[index]) { index += 1 }
            let literal = String(decoding: bytes[start..<index], as: UTF8.self)
            let mantissa = literal.prefix { $0 != "e" && $0 != "E" }
            if mantissa.contains(where: { ("1"..."9").contains($0) }), let value = Double(literal), value == 0 { return literal }
        }
        return nil
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
    }

    private static func holdsZeroReal(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let number): number == 0
        case .array(let items): items.contains(where: holdsZeroReal)
        case .object(let object): object.contains { holdsZeroReal($0.value) }
        case .null, .bool, .integer, .string: false
        }
    }
}
