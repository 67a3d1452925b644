import NavPrefsJSON
import NavPrefsCore
import Testing

@Suite("JSON: strict parsing with Jansson, writing that keeps integers and numbers apart")
struct JSONValueTests {
    @Test("values parse to the right kind", arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("0", .integer(0)),
        ("-0", .integer(0)),
        ("9223372036854775807", .integer(.max)),
        ("-9223372036854775808", .integer(.min)),
        ("1.0", .number(1.0)),
        ("2.5", .number(2.5)),
        ("1e3", .number(1000)),
        ("-2.5E-1", .number(-0.25)),
        ("\"a\\u00e9\\n\\\"\"", .string("aé\n\"")),
        ("\"\\ud83d\\ude00\"", .string("😀")),
        ("\"a\\u0000b\"", .string("a\u{0}b")),  // NUL is valid JSON in a string, and kept
        ("[1,2.0,\"x\"]", .array([.integer(1), .number(2), .string("x")])),
        ("{\"b\":1,\"a\":[]}", .object(["b": .integer(1), "a": .array([])])),
        (" \n\t{ } ", .object([:])),
    ])
    func parses(text: String, expected: JSONValue) throws {
        #expect(try JSONValue.parse(text) == expected)
    }

    @Test("invalid JSON is refused", arguments: [
        "", "{", "{\"a\":1,}", "[1 2]", "{\"a\":1}x", "{a:1}", "'x'", "NaN", "Infinity", "-",
        "01", "1.", ".5", "+1", "\"\\x\"", "\"tab\there\"",
        "{\"by\":1,\"by\":2}",  // duplicate keys: the first must not silently win
        "{\"a\\u0000b\":1}",  // NUL inside a member name: Jansson cannot hold it (openapi.yaml says so)
        "9223372036854775808", "-9223372036854775809",  // beyond Int64
        "1e400",  // beyond Double
        "\"\\ud800\"",  // lone surrogate
    ])
    func refuses(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test("invalid UTF-8 is refused")
    func refusesInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test("an object of up to maxObjectMembers members parses; one more, at any depth, is refused naming the limit")
    func memberLimit() throws {
        func object(_ count: Int) -> String { "{" + (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}" }
        let limit = JSONValue.maxObjectMembers
        guard case .object(let widest) = try JSONValue.parse(object(limit)) else { Issue.record("not an object"); return }
        #expect(widest.count == limit)
        #expect(widest["k\(limit - 1)"] == .integer(Int64(limit - 1)))
        for text in [object(limit + 1), "[" + object(limit + 1) + "]", "{\"a\":" + object(60_000) + "}"] {
            do {
                _ = try JSONValue.parse(text)
                Issue.record("parsed an object beyond the limit")
            } catch {
                #expect(error.exceededMemberLimit == limit)
                #expect(error.message.contains("at most \(limit)"))
            }
        }
        // A caller may ask for less.
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array(object(3).utf8), maxObjectMembers: 2) }
        // Malformed JSON is another problem.
        do {
            _ = try JSONValue.parse("{\"a\":}")
            Issue.record("parsed malformed JSON")
        } catch {
            #expect(error.exceededMemberLimit == nil)
        }
    }

    @Test("errors say what and where")
    func errorsExplain() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse("{\"a\":1,\n \"a\":2}") }
        do {
            _ = try JSONValue.parse("{\"a\":1,\n \"a\":2}")
        } catch {
            #expect(error.message.contains("duplicate"))
            #expect(error.line == 2)
        }
    }

    @Test("writing round-trips and keeps 1.0 a number", arguments: [
        "null", "true", "0", "-17", "9223372036854775807", "1.0", "0.1", "2.5", "-0.0", "1e+20",
        "\"\"", "\"quote\\\" backslash\\\\ newline\\n tab\\t ctl\\u0001 é 😀\"",
        "[]", "{}", "[1,[2,{\"k\":null}]]", "{\"z\":1,\"a\":2,\"m\":{\"y\":true}}",
    ])
    func roundTrips(text: String) throws {
        let value = try JSONValue.parse(text)
        #expect(value.jsonText == text)
        #expect(try JSONValue.parse(value.jsonText) == value)
    }

    @Test("strings are escaped exactly where RFC 8259 requires, NUL included, wherever the byte stands")
    func escapesEveryByte() throws {
        /// RFC 8259's escapes, one scalar at a time: what the writer's scan over runs must equal.
        func reference(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{08}": out += "\\b"
                case "\u{0C}": out += "\\f"
                case _ where scalar.value < 0x20: out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        let plain = String(repeating: "é-a", count: 3_000)
        for byte in UInt8(0)...UInt8(0x7F) {
            let special = String(UnicodeScalar(byte))
            for text in [special, special + plain, plain + special, plain + special + plain + special + special, special + special] {
                let written = JSONValue.string(text).jsonText
                #expect(written == reference(text), "byte \(byte)")
                #expect(JSONWriter.needsEscaping(text) == (byte < 0x20 || byte == 0x22 || byte == 0x5C), "byte \(byte)")
                #expect(try JSONValue.parse(written) == .string(text), "byte \(byte)")
            }
        }
        #expect(!JSONWriter.needsEscaping(plain) && JSONValue.string(plain).jsonText == "\"" + plain + "\"")
        #expect(JSONValue.string("").jsonText == "\"\"")
        // The scan tests eight bytes at a time: each byte that needs an escape at every offset of
        // three words, beside multi-byte characters (bytes of 0x80 and above, never escaped) and
        // the bytes next to the ones it looks for (0x1F/0x20, 0x21/0x23, 0x5B/0x5D).
        for special in ["\u{00}", "\u{1F}", "\"", "\\", "\n"] {
            for length in 1...24 {
                for offset in 0..<length {
                    var scalars = Array(repeating: "\u{20}!#[]ü", count: 4).joined().unicodeScalars.prefix(length).map(String.init)
                    scalars[offset] = special
                    let text = scalars.joined()
                    #expect(JSONValue.string(text).jsonText == reference(text), "\(Array(special.utf8)) at \(offset) of \(length)")
                    #expect(JSONWriter.needsEscaping(text), "\(Array(special.utf8)) at \(offset) of \(length)")
                }
            }
        }
    }

    @Test("object member order is kept, equality ignores it")
    func objectOrder() throws {
        let value = try JSONValue.parse("{\"z\":1,\"a\":2}")
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.keys == ["z", "a"])
        #expect(value == (try JSONValue.parse("{\"a\":2,\"z\":1}")))
        #expect(value.hashValue == (try JSONValue.parse("{\"a\":2,\"z\":1}")).hashValue)
    }

    @Test("integral values follow JSON Schema: 1104.0 is an integer, 2.5 and 2^63 are not", arguments: [
        (JSONValue.integer(5), Int64?.some(5)),
        (.number(1104.0), 1104),
        (.number(-3.0), -3),
        (.number(2.5), nil),
        (.number(9_223_372_036_854_775_808.0), nil),
        (.number(-9_223_372_036_854_775_808.0), .min),
        (.string("5"), nil),
        (.bool(true), nil),
    ])
    func integralValue(value: JSONValue, expected: Int64?) {
        #expect(value.integralValue == expected)
    }

    @Test("the object builder writes fields in order with escapes")
    func objectBuilder() throws {
        var builder = JSONObjectBuilder()
        builder.add("name", "a\"b")
        builder.add("count", Int64(-3))
        builder.add("ratio", 0.5)
        builder.add("whole", 2.0)
        builder.add("flag", true)
        builder.addNull("none")
        builder.add("nested", json: "[1]")
        builder.add("value", JSONValue.object(["k": .integer(1)]))
        #expect(builder.json == #"{"name":"a\"b","count":-3,"ratio":0.5,"whole":2.0,"flag":true,"none":null,"nested":[1],"value":{"k":1}}"#)
        #expect(JSONObjectBuilder().json == "{}")
        _ = try JSONValue.parse(builder.json)
    }
}
