import NavPrefsCore
import NavPrefsJSON
import Testing

/// UserDefaults' typed getters and layers, semantics P-0..P-6. Every expected value here is what
/// swift-corelibs-foundation's `UserDefaults` answered for the same stored value (P-0: Foundation
/// is the authority); Tests/NavPrefsFidelityTests checks thousands more against it directly.
@Suite("Preferences (semantics P)")
struct PreferenceTests {
    @Test("P-1: an absent key reads nil, 0, 0.0 or false, getter by getter")
    func p1Absent() {
        for getter in [PreferenceGetter.object, .string, .array, .dictionary, .stringArray, .url] {
            #expect(getter.read(nil) == .null, "\(getter)")
        }
        #expect(PreferenceGetter.integer.read(nil) == .integer(0))
        #expect(PreferenceGetter.float.read(nil) == .number(0))
        #expect(PreferenceGetter.double.read(nil) == .number(0))
        #expect(PreferenceGetter.bool.read(nil) == .bool(false))
    }

    @Test("P-2: integer truncates toward zero and reads strings as NSString.integerValue", arguments: [
        (JSONValue.integer(5), Int64(5)),
        (.integer(.min), .min),
        (.integer(.max), 0),  // corelibs unboxes Int.max as Int64, which no typed getter accepts
        (.bool(true), 1),
        (.bool(false), 0),
        (.number(2.67), 2),
        (.number(-2.67), -2),
        (.number(-0.5), 0),
        (.number(1e20), .min),  // x86-64's (long)double of an out-of-range value
        (.string("123"), 123),
        (.string(" 42 "), 42),
        (.string("\n42"), 42),
        (.string("- 42"), -42),
        (.string("007"), 7),
        (.string("12.9"), 12),
        (.string("1e5"), 1),
        (.string("0x1F"), 0),
        (.string("9223372036854775808"), .max),
        (.string("abc"), 0),
        (.string(""), 0),
        (.string("😀"), 0),  // Foundation crashes here; we answer the getter's nothing-found value
        (.array([.integer(1)]), 0),
        (.object(["a": .integer(1)]), 0),
    ])
    func p2Integer(value: JSONValue, expected: Int64) {
        #expect(PreferenceGetter.integer.read(value) == .integer(expected))
    }

    @Test("P-2: double and float read numbers, booleans and NSString.doubleValue/floatValue", arguments: [
        (JSONValue.number(2.5), PreferenceGetter.double, 2.5),
        (.integer(2), .double, 2.0),
        (.bool(true), .double, 1.0),
        (.string("123.4"), .double, 123.4),
        (.string("\t42"), .double, 42.0),
        (.string("\n42"), .double, 0.0),  // doubleValue skips whitespace but not newlines
        (.string("5.5kg"), .double, 5.5),
        (.string(".5"), .double, 0.5),
        (.string("1e"), .double, 0.0),  // an exponent without digits spoils the number
        (.string("inf"), .double, 0.0),
        (.string("1e400"), .double, .infinity),
        (.string("seven"), .double, 0.0),
        (.array([]), .double, 0.0),
        (.number(1e300), .float, .infinity),  // Float(1e300)
        (.integer(16_777_217), .float, 16_777_216),
        (.string("3.4028236e38"), .float, .infinity),
    ])
    func p2Floating(value: JSONValue, getter: PreferenceGetter, expected: Double) {
        #expect(getter.read(value) == .number(expected))
    }

    @Test("P-3: bool is true for nonzero numbers and for strings NSString.boolValue calls true", arguments: [
        (JSONValue.bool(true), true),
        (.bool(false), false),
        (.integer(1), true),
        (.integer(2), true),
        (.integer(-1), true),
        (.number(0.5), true),
        (.number(-0.0), false),
        (.integer(0), false),
        (.string("yes"), true),
        (.string("YES"), true),
        (.string("Y"), true),
        (.string("t"), true),
        (.string("true"), true),
        (.string("tomato"), true),
        (.string("2"), true),
        (.string(" 1"), true),
        (.string("-3"), true),
        (.string("007"), true),
        (.string("2.67"), true),
        (.string("0.5"), false),
        (.string("+t"), false),  // corelibs reads letters first; Darwin's documentation differs
        (.string("NO"), false),
        (.string("false"), false),
        (.string("0"), false),
        (.string("abc"), false),
        (.string(""), false),
        (.array([.bool(true)]), false),
        (.object([:]), false),
    ])
    func p3Bool(value: JSONValue, expected: Bool) {
        #expect(PreferenceGetter.bool.read(value) == .bool(expected))
    }

    @Test("P-4: string of a number is NSNumber's text (Swift's shortest form, 2.0 stays \"2.0\"); arrays and objects are nil", arguments: [
        (JSONValue.string("x"), JSONValue.string("x")),
        (.integer(123), .string("123")),
        (.integer(-9), .string("-9")),
        (.number(2.5), .string("2.5")),
        (.number(2.0), .string("2.0")),
        (.number(-0.0), .string("-0.0")),
        (.number(1e20), .string("1e+20")),
        (.number(0.1), .string("0.1")),
        (.bool(true), .string("1")),
        (.bool(false), .string("0")),
        (.array([.string("x")]), .null),
        (.object(["k": .string("v")]), .null),
    ])
    func p4String(value: JSONValue, expected: JSONValue) {
        #expect(PreferenceGetter.string.read(value) == expected)
    }

    @Test("P-4: array, dictionary and stringArray answer their own kind only; object answers anything")
    func p4Collections() {
        let strings = JSONValue.array([.string("a"), .string("b")])
        let mixed = JSONValue.array([.string("a"), .integer(1)])
        let object = JSONValue.object(["k": .integer(1)])
        #expect(PreferenceGetter.array.read(mixed) == mixed)
        #expect(PreferenceGetter.array.read(object) == .null)
        #expect(PreferenceGetter.dictionary.read(object) == object)
        #expect(PreferenceGetter.dictionary.read(mixed) == .null)
        #expect(PreferenceGetter.stringArray.read(strings) == strings)
        #expect(PreferenceGetter.stringArray.read(mixed) == .null, "a number in the array is not converted")
        #expect(PreferenceGetter.stringArray.read(.array([])) == .array([]))
        #expect(PreferenceGetter.object.read(.integer(3)) == .integer(3))
    }

    @Test("P-4: url of a string is a file URL (URL(fileURLWithPath:)), never a parse of the text", arguments: [
        ("/tmp/x", "file:///tmp/x"),
        ("~/notes", "file:///root/notes"),
        ("https://example.com", "file:///https%3A//example.com"),
        ("a b", "file:///a%20b"),
    ])
    func p4URL(stored: String, expected: String) {
        #expect(PreferenceGetter.url.read(.string(stored)) == .string(expected))
        #expect(PreferenceGetter.url.read(.integer(1)) == .null)
    }

    static let key = (try? PreferenceKey("theme")) ?? WellKnownKey.counter

    @Test("P-5: a registered default shows only where nothing is stored")
    func p5Layers() {
        let stored = PreferenceSlot(key: Self.key, stored: .init(value: .string("dark"), version: Version(7)),
                                    registered: .string("light"), defaultsVersion: Version(3))
        #expect(stored.value == .string("dark"))
        #expect(stored.source == .stored)
        #expect(stored.version == Version(7))
        let registered = PreferenceSlot(key: Self.key, stored: nil, registered: .string("light"), defaultsVersion: Version(3))
        #expect(registered.value == .string("light"))
        #expect(registered.source == .registered)
        #expect(registered.version == Version(3))
        let absent = PreferenceSlot(key: Self.key, stored: nil, registered: nil, defaultsVersion: Version(3))
        #expect(absent.value == nil)
        #expect(absent.source == .absent)
        #expect(absent.version == nil, "no value in either layer: no representation")
    }

    @Test("P-6: after a removal the default shows again, with a version newer than any before")
    func p6RemovalRevealsDefault() {
        let removed = PreferenceSlot(key: Self.key, stored: nil, removedAt: Version(9), registered: .string("light"),
                                     defaultsVersion: Version(3))
        #expect(removed.value == .string("light"))
        #expect(removed.viewVersion == Version(9))
        let removedWithoutDefault = PreferenceSlot(key: Self.key, stored: nil, removedAt: Version(9), registered: nil,
                                                   defaultsVersion: Version(3))
        #expect(removedWithoutDefault.version == nil)
        #expect(removedWithoutDefault.viewVersion == Version(9))
    }

    @Test("the whole set lists stored values over defaults, sorted by key")
    func dictionaryRepresentation() throws {
        let snapshot = PreferenceSnapshot(
            profile: .default,
            stored: [try PreferenceKey("b"): .init(value: .integer(2), version: Version(5)),
                     try PreferenceKey("a"): .init(value: .integer(1), version: Version(4))],
            registered: ["b": .integer(20), "c": .integer(30)],
            defaultsVersion: Version(2), version: Version(5))
        #expect(JSONValue.object(snapshot.merged).jsonText == #"{"a":1,"b":2,"c":30}"#)
    }

    @Test("keys: any text Foundation accepts but the empty one, NUL and more than 1024 bytes of UTF-8", arguments: [
        ("numIndex", true), ("fontSizekey", true), ("com.example.flag", true), ("An Integer", true), ("A Dictionary", true),
        ("a/b", true), ("a b", true), ("ключ", true), ("😀", true), (".hidden", true), ("-x", true),
        (String(repeating: "k", count: 1_024), true), (String(repeating: "k", count: 1_025), false),
        (String(repeating: "é", count: 512), true), (String(repeating: "é", count: 513), false),
        ("", false), ("a\u{0}b", false),
    ])
    func keys(text: String, valid: Bool) {
        #expect(((try? PreferenceKey(text)) != nil) == valid)
    }

    @Test("keys compare by their bytes, as Foundation's: \"é\" and \"e\u{301}\" are two keys")
    func keysCompareBytes() throws {
        #expect(try PreferenceKey("\u{E9}") != PreferenceKey("e\u{301}"))
        #expect(Set([try PreferenceKey("\u{E9}"), try PreferenceKey("e\u{301}")]).count == 2)
    }
}
