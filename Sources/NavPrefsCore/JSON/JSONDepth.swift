/// How deeply JSON nests, and the one bound every part of NavPrefs holds values to.
///
/// A value's depth counts its containers: a scalar is 0, `[]` and `{}` are 1, `[[1]]` is 2.
/// The API refuses a value deeper than ``maxValueDepth`` (422 `nested-too-deeply`), so every
/// tool that carries a value inside its own objects stays far below every parser's bound: an
/// event's data adds 2 levels (a defaults event: `{"values": {key: value}}`), a page of events 3
/// more, a line of the transfer format at most 3, the Swift client's parser allows 512 and
/// Jansson about 2,048. Values stored before the bound (up to Jansson's limit) still move: the
/// transfer format carries one deeper than ``maxInlineDepth`` as its JSON text.
public enum JSONDepth {
    /// The deepest value the API accepts, and so the deepest any event, page or export line
    /// written since holds (plus the few levels each adds).
    public static let maxValueDepth = 64

    /// The deepest value the transfer format writes as itself; a deeper one (only a store
    /// written before ``maxValueDepth`` held can have it) is written as its JSON text.
    public static let maxInlineDepth = 256

    /// The depth of `value`. Recursive: a parsed value is at most a parser's bound deep.
    public static func of(_ value: JSONValue) -> Int {
        switch value {
        case .array(let items): 1 + (items.lazy.map(of).max() ?? 0)
        case .object(let object): 1 + (object.lazy.map { of($0.value) }.max() ?? 0)
        case .null, .bool, .integer, .number, .string: 0
        }
    }

    /// The depth of the JSON text `text`, read without parsing it (so any depth can be measured):
    /// brackets outside strings. For text the store wrote, which is valid JSON.
    public static func of(text: String) -> Int {
        var depth = 0, deepest = 0, inString = false, escaped = false
        for byte in text.utf8 {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}
