import Foundation

/// A small strict JSON parser (RFC 8259) that keeps what `JSONSerialization` blurs across
/// platforms: an integer literal is an integer, a literal with a fraction or an exponent a
/// double, `true` a boolean rather than a number, member order as written.
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    /// Nesting deeper than this is refused: a hostile answer must not exhaust the stack.
    private static let maxDepth = 512

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() throws(NavPrefsError) -> JSON {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw fail("text after the JSON value") }
        return value
    }

    private mutating func parseValue(depth: Int) throws(NavPrefsError) -> JSON {
        guard depth < Self.maxDepth else { throw fail("nested too deeply") }
        skipWhitespace()
        guard let byte = peek() else { throw fail("unexpected end") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return try parseNumber()
        }
    }

    private mutating func parseObject(depth: Int) throws(NavPrefsError) -> JSON {
        index += 1
        var members: [JSON.Member] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw fail("an object member needs a name") }
            let name = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw fail("':' expected") }
            index += 1
            members.append(JSON.Member(name, try parseValue(depth: depth + 1)))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "}")?: index += 1; return .object(members)
            default: throw fail("',' or '}' expected")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(NavPrefsError) -> JSON {
        index += 1
        var elements: [JSON] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "]")?: index += 1; return .array(elements)
            default: throw fail("',' or ']' expected")
            }
        }
    }

    private mutating func parseString() throws(NavPrefsError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ end: Int) throws(NavPrefsError) {
            guard runStart < end else { return }
            // Foundation's check rather than `String(validating:)`, which needs iOS 18 / macOS 15.
            guard let run = String(bytes: bytes[runStart..<end], encoding: .utf8) else { throw fail("invalid UTF-8") }
            scalars.append(contentsOf: run.unicodeScalars)
        }
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: "\""):
                try flush(index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush(index)
                index += 1
                scalars.append(try parseEscape())
                runStart = index
            case 0..<0x20:
                throw fail("a control character in a string")
            default:
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    private mutating func parseEscape() throws(NavPrefsError) -> Unicode.Scalar {
        guard let byte = peek() else { throw fail("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{8}"
        case UInt8(ascii: "f"): return "\u{C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try hex4()
            if (0xD800..<0xDC00).contains(high) {
                guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fail("a lone surrogate")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low),
                      let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else { throw fail("a lone surrogate") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else { throw fail("a lone surrogate") }
            return scalar
        default:
            throw fail("an unknown escape")
        }
    }

    private mutating func hex4() throws(NavPrefsError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("a short \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("a bad \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    private mutating func parseNumber() throws(NavPrefsError) -> JSON {
        let start = index
        var isInteger = true
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9") else { throw fail("a value expected") }
        if first == UInt8(ascii: "0") { index += 1 } else { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard skipDigits() > 0 else { throw fail("digits expected after '.'") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw fail("digits expected in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger {
            guard let number = Int64(text) else { throw fail("an integer beyond 64 bits") }
            return .integer(number)
        }
        guard let number = Double(text), number.isFinite else { throw fail("a number beyond a double") }
        return .number(number)
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = index
        while let byte = peek(), byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    private mutating func expect(_ word: String) throws(NavPrefsError) {
        let literal = Array(word.utf8)
        guard index + literal.count <= bytes.count, Array(bytes[index..<index + literal.count]) == literal else {
            throw fail("'\(word)' expected")
        }
        index += literal.count
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private func fail(_ reason: String) -> NavPrefsError {
        .invalidResponse("not JSON (\(reason) at byte \(index))")
    }
}
