import CJansson
import NavPrefsCore

/// Parses JSON with Jansson (Debian's libjansson) and converts the tree to ``JSONValue``.
/// The only file that touches Jansson's pointers.
/// Related documentation: <https://jansson.readthedocs.io/en/latest/apiref.html#decoding>
enum JanssonDecoder {
    /// `JSON_REJECT_DUPLICATES`: the first of two keys silently winning is how mass-assignment
    /// bugs hide. `JSON_DECODE_ANY`: a top-level scalar is valid JSON; callers check the shape.
    /// `JSON_ALLOW_NUL`: "\u0000" is valid JSON in any string, so it is kept, not refused.
    private static let flags = 0x1 | 0x4 | 0x10

    static func decode(_ bytes: [UInt8], maxObjectMembers: Int) throws(JSONParseError) -> JSONValue {
        var error = json_error_t()
        let root: UnsafeMutablePointer<json_t>? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                json_loadb(characters.baseAddress, characters.count, flags, &error)
            }
        }
        guard let root else {
            let message = withUnsafeBytes(of: error.text) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            throw JSONParseError(message: message, line: Int(error.line), column: Int(error.column))
        }
        defer { json_decref(root) }
        let value = try convert(root, maxObjectMembers: maxObjectMembers)
        if let literal = NumberUnderflow.firstLiteral(in: bytes, parsed: value) {
            throw JSONParseError(message: "the number \(literal.prefix(40)) is too small for a double (it would read as 0); send 0 or a larger number",
                                 line: 0, column: 0)
        }
        return value
    }

    /// Jansson's tree is well-formed and at most 2048 levels deep (its parser's limit), so
    /// recursion is bounded. Linear: Jansson refused duplicate keys with its hash table, so each
    /// object's members are taken as they come, without a lookup each.
    private static func convert(_ node: UnsafeMutablePointer<json_t>, maxObjectMembers: Int) throws(JSONParseError) -> JSONValue {
        switch cjansson_typeof(node) {
        case JSON_OBJECT:
            let size = json_object_size(node)
            guard size <= maxObjectMembers else {
                throw JSONParseError(message: "an object has \(size) members; at most \(maxObjectMembers) are accepted", line: 0,
                                     column: 0, exceededMemberLimit: maxObjectMembers)
            }
            var members: [JSONObject.Member] = []
            members.reserveCapacity(size)
            var iterator = json_object_iter(node)
            while let current = iterator {
                if let key = json_object_iter_key(current), let value = json_object_iter_value(current) {
                    // Keys may hold "\u0000" like any string: read them by length, not to the NUL.
                    let raw = UnsafeRawBufferPointer(start: key, count: json_object_iter_key_len(current))
                    members.append((key: String(decoding: raw, as: UTF8.self), value: try convert(value, maxObjectMembers: maxObjectMembers)))
                }
                iterator = json_object_iter_next(node, current)
            }
            return .object(JSONObject(uniqueMembers: members))
        case JSON_ARRAY:
            let count = json_array_size(node)
            var items: [JSONValue] = []
            items.reserveCapacity(count)
            for index in 0..<count {
                if let item = json_array_get(node, index) { items.append(try convert(item, maxObjectMembers: maxObjectMembers)) }
            }
            return .array(items)
        case JSON_STRING:
            guard let characters = json_string_value(node) else { return .string("") }
            let raw = UnsafeRawBufferPointer(start: characters, count: json_string_length(node))
            return .string(String(decoding: raw, as: UTF8.self))
        case JSON_INTEGER:
            return .integer(json_integer_value(node))
        case JSON_REAL:
            return .number(json_real_value(node))
        case JSON_TRUE:
            return .bool(true)
        case JSON_FALSE:
            return .bool(false)
        default:
            return .null
        }
    }
}
