#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        string.withCString { text in plainRun(text) } != string.utf8.count
    }

    /// A string literal with the escapes RFC 8259 requires (quote, backslash, control characters).
    ///
    /// Works on the UTF-8 bytes, copying the runs between escapes whole: every byte that needs
    /// an escape is ASCII, and the bytes of a multi-byte character never are, so runs never
    /// split one. (A text that is itself JSON, bound as a member of a JSON list for SQL, is
    /// nothing but quotes to escape: written scalar by scalar it took most of a large write.)
    public static func write(string: String, into output: inout String) {
        let count = string.utf8.count
        let escaped: [UInt8]? = string.withCString { text in
            var start = plainRun(text)
            // Most strings need no escape: appended whole (a hot path of every response and log line).
            guard start < count else { return nil }
            return text.withMemoryRebound(to: UInt8.self, capacity: count + 1) { bytes in
                var escaped: [UInt8] = []
                escaped.reserveCapacity(count + count / 4 + 2)
                escaped.append(0x22)
                escaped.append(contentsOf: UnsafeBufferPointer(start: bytes, count: start))
                while start < count {
                    appendEscape(of: bytes[start], to: &escaped)
                    start += 1
                    let run = plainRun(text + start)
                    escaped.append(contentsOf: UnsafeBufferPointer(start: bytes + start, count: min(run, count - start)))
                    start += run
                }
                escaped.append(0x22)
                return escaped
            }
        }
        guard let escaped else {
            output += "\""
            output += string
            output += "\""
            return
        }
        output += String(decoding: escaped, as: UTF8.self)
    }

    /// The bytes a string literal escapes, but NUL, which ends a C string: a scan stops there as
    /// it stops at them (``plainRun(_:)``).
    private static let escapedBytes = "\u{01}\u{02}\u{03}\u{04}\u{05}\u{06}\u{07}\u{08}\u{09}\u{0A}\u{0B}\u{0C}\u{0D}\u{0E}\u{0F}"
        + "\u{10}\u{11}\u{12}\u{13}\u{14}\u{15}\u{16}\u{17}\u{18}\u{19}\u{1A}\u{1B}\u{1C}\u{1D}\u{1E}\u{1F}\"\\"

    /// How many bytes from `text` on need no escape: up to the first that does, or to the NUL
    /// that ends it (a NUL inside a string needs one too, so the caller, who knows the length,
    /// tells the two apart). The C library's `strcspn` compares many bytes at a time, where a
    /// loop over bytes in Swift costs a call per byte in debug builds, which the tests and the
    /// hostile suite run: a large write's values are scanned two or three times on the store's
    /// one writer, and such a loop made most of its time there.
    private static func plainRun(_ text: UnsafePointer<CChar>) -> Int {
        strcspn(text, escapedBytes)
    }

    private static func appendEscape(of byte: UInt8, to escaped: inout [UInt8]) {
        escaped.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): escaped.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): escaped.append(UInt8(ascii: "\\"))
        case 0x0A: escaped.append(UInt8(ascii: "n"))
        case 0x0D: escaped.append(UInt8(ascii: "r"))
        case 0x09: escaped.append(UInt8(ascii: "t"))
        case 0x08: escaped.append(UInt8(ascii: "b"))
        case 0x0C: escaped.append(UInt8(ascii: "f"))
        default:
            let hex = Array("0123456789abcdef".utf8)
            escaped.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
        }
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
