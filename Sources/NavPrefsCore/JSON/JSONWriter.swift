/// Writes JSON text. Numbers use Swift's shortest round-trip form (`0.1`, not Jansson's
/// `0.10000000000000001`), and a number that is whole keeps its `.0` so it reads back as a number.
public enum JSONWriter {
    /// Appends `value` to `output` as compact JSON.
    public static func write(_ value: JSONValue, into output: inout String) {
        var bytes: [UInt8] = []
        write(value, into: &bytes)
        output += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` to `output` as the bytes of compact JSON: appending to a byte buffer
    /// costs less than to a `String`, which checks and grows its storage at every append (an
    /// event's payload is written on every write).
    public static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let number): output.append(contentsOf: String(number).utf8)
        case .number(let number): output.append(contentsOf: (number.isFinite ? number.description : "null").utf8)
        case .string(let text): write(string: text, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(item, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(string: member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// A finite number in shortest round-trip form; JSON has no NaN or infinity, so those become `null`.
    public static func write(number: Double, into output: inout String) {
        guard number.isFinite else { output += "null"; return }
        output += number.description
    }

    /// Whether `string` holds a quote, a backslash or a control character.
    public static func needsEscaping(_ string: String) -> Bool {
        let bytes = string.utf8Span.span
        return plainRun(bytes, from: 0) != bytes.count
    }

    /// A string literal with the escapes RFC 8259 requires (quote, backslash, control characters).
    ///
    /// Works on the UTF-8 bytes, copying the runs between escapes whole: every byte that needs
    /// an escape is ASCII, and the bytes of a multi-byte character never are, so runs never
    /// split one. (A text that is itself JSON, bound as a member of a JSON list for SQL, is
    /// nothing but quotes to escape: written scalar by scalar it took most of a large write.)
    public static func write(string: String, into output: inout String) {
        // Most strings need no escape: append them whole (a hot path of every response and log line).
        if !needsEscaping(string) {
            output += "\""
            output += string
            output += "\""
            return
        }
        var escaped: [UInt8] = []
        write(string: string, into: &escaped)
        output += String(decoding: escaped, as: UTF8.self)
    }

    /// ``write(string:into:)`` into a byte buffer. It reserves nothing: an exact reservation per
    /// string would copy the whole buffer for each member of a large object.
    public static func write(string: String, into output: inout [UInt8]) {
        let bytes = string.utf8Span.span
        output.append(0x22)
        var start = 0
        while start < bytes.count {
            let run = plainRun(bytes, from: start)
            append(bytes.extracting(start..<(start + run)), to: &output)
            start += run
            // A byte to escape (a NUL inside the string included), where the scan stopped.
            if start < bytes.count {
                appendEscape(of: bytes[start], to: &output)
                start += 1
            }
        }
        output.append(0x22)
    }

    /// Copies a run of plain bytes at once. An element-by-element copy from a `Span` costs a call
    /// per byte in debug builds (44 ms per MB, measured with Swift 6.3), and the tests and the
    /// hostile suite run debug builds; the buffer pointer spans exactly `run`'s bytes and lives
    /// only for this copy.
    private static func append(_ run: Span<UInt8>, to output: inout [UInt8]) {
        unsafe run.withUnsafeBufferPointer { buffer in unsafe output.append(contentsOf: buffer) }
    }

    /// How many bytes from `start` on need no escape: up to the first quote, backslash or
    /// control character (NUL included), or the end.
    ///
    /// Eight bytes at a time (a word's bytes tested at once, as in "Bit Twiddling Hacks":
    /// `hasless` and `haszero`), then byte by byte within the word that holds one. A loop over
    /// single bytes costs a call per byte in debug builds, which the tests and the hostile suite
    /// run: a large write's values are scanned two or three times, and such a loop made most of a
    /// large write's time. The word is read from the `RawSpan`, which checks that its eight bytes
    /// lie inside the string (the load is marked `unsafe` only because some types have bit
    /// patterns that are not values; every bit pattern is a `UInt64`).
    static func plainRun(_ bytes: Span<UInt8>, from start: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let raw = unsafe bytes.bytes
        let limit = bytes.count
        var index = start
        while index + 8 <= limit {
            let word = unsafe raw.unsafeLoadUnaligned(fromByteOffset: index, as: UInt64.self)
            let control = (word &- ones &* 0x20) & ~word & highBits
            let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
            let quotes = (quote &- ones) & ~quote & highBits
            let backslashes = (backslash &- ones) & ~backslash & highBits
            if control | quotes | backslashes != 0 { break }
            index += 8
        }
        while index < limit {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C { return index - start }
            index += 1
        }
        return limit - start
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
        var bytes: [UInt8] = []
        // Room for a small value at once (an event's payload): growing by doubling from
        // nothing cost an allocation per step.
        bytes.reserveCapacity(128)
        JSONWriter.write(self, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
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
