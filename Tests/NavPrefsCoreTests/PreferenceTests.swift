import NavPrefsCore
import NavPrefsJSON
import Testing

/// UserDefaults' typed getters and layers, semantics P-1..P-6.
@Suite("Preferences (semantics P)")
struct PreferenceTests {
    @Test("P-1: an absent key reads 0 as integer, 0.0 as float, false as bool, null as string")
    func p1Absent() {
        #expect(PreferenceType.integer.read(nil) == .integer(0))
        #expect(PreferenceType.float.read(nil) == .number(0))
        #expect(PreferenceType.bool.read(nil) == .bool(false))
        #expect(PreferenceType.string.read(nil) == .null)
    }

    @Test("P-2: integer coercions (true is 1, 2.67 is 2, -2.67 is -3, \"123\" is 123)", arguments: [
        (JSONValue.integer(5), Int64(5)),
        (.integer(.min), .min),
        (.bool(true), 1),
        (.bool(false), 0),
        (.number(2.67), 2),
        (.number(-2.67), -3),
        (.number(3.0), 3),
        (.number(-0.5), -1),
        (.number(1e30), .max),
        (.number(-1e30), .min),
        (.string("123"), 123),
        (.string(" 42 "), 42),
        (.string("-7"), -7),
        (.string("2.67"), 2),
        (.string("1e3"), 1000),
        (.string("abc"), 0),
        (.string(""), 0),
        (.string("nan"), 0),
        (.string("0x10"), 0),
        (.array([.integer(1)]), 0),
        (.object(["a": .integer(1)]), 0),
        (.null, 0),
    ])
    func p2Integer(value: JSONValue, expected: Int64) {
        #expect(PreferenceType.integer.read(value) == .integer(expected))
    }

    @Test("P-2: float coercions (true is 1.0, 2 is 2.0, \"123.4\" is 123.4)", arguments: [
        (JSONValue.number(2.5), 2.5),
        (.integer(2), 2.0),
        (.bool(true), 1.0),
        (.bool(false), 0.0),
        (.string("123.4"), 123.4),
        (.string("-0.5"), -0.5),
        (.string("inf"), 0.0),
        (.string("seven"), 0.0),
        (.array([]), 0.0),
        (.null, 0.0),
    ])
    func p2Float(value: JSONValue, expected: Double) {
        #expect(PreferenceType.float.read(value) == .number(expected))
    }

    @Test("P-3: bool is true for 1, 1.0, \"true\", \"YES\", \"1\", and false for every other present value", arguments: [
        (JSONValue.bool(true), true),
        (.bool(false), false),
        (.integer(1), true),
        (.number(1.0), true),
        (.string("true"), true),
        (.string("YES"), true),
        (.string("1"), true),
        (.integer(0), false),
        (.integer(2), false),
        (.number(0.5), false),
        (.string("yes"), false),
        (.string("TRUE"), false),
        (.string("false"), false),
        (.string("NO"), false),
        (.string(""), false),
        (.array([.bool(true)]), false),
        (.object([:]), false),
        (.null, false),
    ])
    func p3Bool(value: JSONValue, expected: Bool) {
        #expect(PreferenceType.bool.read(value) == .bool(expected))
    }

    @Test("P-4: string of a number is its text; arrays, objects and null are null", arguments: [
        (JSONValue.string("x"), JSONValue.string("x")),
        (.integer(123), .string("123")),
        (.integer(-9), .string("-9")),
        (.number(2.5), .string("2.5")),
        (.number(2.0), .string("2")),
        (.number(1e20), .string("1e+20")),
        (.bool(true), .string("1")),
        (.bool(false), .string("0")),
        (.array([.string("x")]), .null),
        (.object(["k": .string("v")]), .null),
        (.null, .null),
    ])
    func p4String(value: JSONValue, expected: JSONValue) {
        #expect(PreferenceType.string.read(value) == expected)
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

    @Test("preference keys are validated", arguments: [
        ("numIndex", true), ("fontSizekey", true), ("com.example.flag", true), ("a:b-c_d", true),
        (String(repeating: "k", count: 128), true), (String(repeating: "k", count: 129), false),
        ("", false), (".hidden", false), ("a/b", false), ("a b", false), ("ключ", false),
    ])
    func keys(text: String, valid: Bool) {
        #expect(((try? PreferenceKey(text)) != nil) == valid)
    }
}
