import NavPrefsJSON
import NavPrefsCore

/// The bytes of one log line, appended without going through `String` (whose appends check
/// and grow the string's storage every time: a measurable cost at one line per request).
struct LineBuffer {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Appends a literal piece of the line (a field's name, punctuation). A literal `String`
    /// is stored in the binary: appending it copies its bytes and allocates nothing.
    mutating func append(_ text: String) {
        append(raw: text)
    }

    /// Appends `text` as it is (callers know it needs no escaping).
    mutating func append(raw text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends `text` as a JSON string literal.
    mutating func append(jsonString text: String) {
        if JSONWriter.needsEscaping(text) {
            var escaped = ""
            JSONWriter.write(string: text, into: &escaped)
            append(raw: escaped)
        } else {
            bytes.append(UInt8(ascii: "\""))
            append(raw: text)
            bytes.append(UInt8(ascii: "\""))
        }
    }

    /// Appends `microseconds` as milliseconds with three decimals (`1234` is `1.234`).
    mutating func append(milliseconds microseconds: Int64) {
        let magnitude = microseconds.magnitude
        if microseconds < 0 { append("-") }
        append(Int64(magnitude / 1000))
        append(".")
        let fraction = magnitude % 1000
        if fraction < 100 { append("0") }
        if fraction < 10 { append("0") }
        append(Int64(fraction))
    }

    /// Appends a decimal integer without allocating.
    mutating func append(_ number: Int64) {
        if number < 0 {
            bytes.append(UInt8(ascii: "-"))
            if number == .min { append(raw: "9223372036854775808"); return }
        }
        var magnitude = number.magnitude
        var digits = InlineArray<20, UInt8>(repeating: 0)  // on the stack: UInt64.max has 20 digits
        var count = 0
        repeat {
            digits[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            count += 1
        } while magnitude > 0
        for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[index]) }
    }
}
