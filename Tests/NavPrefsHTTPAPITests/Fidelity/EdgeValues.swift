import NavPrefsCore

/// The named edge cases of the differential suite: every shape of string NSString's numeric
/// readers treat specially, paths for url(forKey:), and the boundaries of each number kind.
/// Each is stored in Foundation's UserDefaults and through the API, and read with every getter.
enum EdgeValues {
    static let strings: [String] = [
        "", " ", "0", "1", "-1", "+1", "12", "-0", "+0", "007", "0x1F", "12abc", "12.9", "-12.9", "1e5", "1E5", "1e", "1e+", "1e-", "1e+5", "1e-5",
        "1e400", "-1e400", "1e-400", "0e400", "-0e400", "1e308", "1e309", "2e308", "1.7976931348623157e308", "4.9e-324", "2.4703282292062327e-324",
        "inf", "-inf", "infinity", "nan", "NaN", "0x1p3", ".5", "5.", "+.5", "-.5", ".", "-.", "-", "+", "e5", ".e5", "5.5kg",
        " 42", "\t42", "\n42", "\r42", "\u{0B}42", "\u{0C}42", "\u{85}42", "\u{A0}42", "\u{2028}42", "\u{3000}42", "\u{200B}42", "\u{FEFF}42", "\u{180E}42",
        "- 42", "-\n42", "+ 42", " - 4 2",
        "9223372036854775807", "9223372036854775808", "99999999999999999999", "-9223372036854775808", "-9223372036854775809", "-99999999999999999999",
        "0000000000000000000000000001", "340282346638528859811704183484516925440", "3.4028235e38", "3.4028236e38", "1e39", "1e-46",
        "123456789012345678901234567890", "0.1", "0.2", "0.3", "3.14159265358979323846", "2.5e-3", "1.5e300", "12345678901234567890e-20",
        "YES", "yes", "Y", "y", "t", "T", "true", "TRUE", "True", "tomato", "NO", "no", "N", "n", "false", "FALSE", "f",
        " yes", "\nYES", "+t", "-y", "00y", "0y", "01", "00", "000", "0001", "-0001", "+ 0 0 1", "0 1", "0.5", "1.5", "9", "-9", "+", "++1", "+-1", "-+1",
        "\u{2212}1", "\u{FF0B}1", "١٢", "٣", "۳", "１２", "１", "ｙｅｓ", "ｔｒｕｅ", "²", "𝟗", "😀", "😀1", " 😀", "-😀", "1😀", "é", "\u{301}1", "+\u{301}1", "\0", "\01", "1\0", "\u{FFFF}1", "1\u{FFFF}2",
        "https://x", "https://example.com/a?b#c", "file:///etc/passwd", "~", "~/", "~/a", "~/a/", "~root", "~root/a", "~nobodyxyz/a/", "~\u{301}", "~/\u{301}a",
        "/", "//", "/tmp", "/tmp/", "tmp", ".", "..", "a/./b/../c", "/a/./b/../c", "a b", "%41", "a:b/c", "a\0b", "/tmp\0/x", "~\u{600}/", "~/a\u{600}/", "~bin/", "~root\u{301}//", "~//a//", "a/b:c", "\0", "\01",
    ]
    static var all: [(label: String, value: JSONValue)] {
        var edgeValues: [(label: String, value: JSONValue)] = strings.map { ("edge-string", .string($0)) }
        edgeValues += [true, false].map { ("edge-bool", .bool($0)) }
        edgeValues += [Int64.max, Int64.max - 1, Int64.min, Int64.min + 1, 0, 1, -1, 1 << 53, (1 << 53) + 1, 16_777_217].map { ("edge-integer", .integer($0)) }
        edgeValues += [0.0, -0.0, 1.0, 2.0, -2.0, 2.5, -2.5, 2.67, -2.67, 0.1, 1e20, -1e20, 1e300, 1e-300, Double.leastNonzeroMagnitude, 0x1p63, -0x1p63, 0x1p63.nextDown, -0x1p63.nextUp,
            9.2e18, -9.2e18, 3.4028235677973366e38, 3.4028234663852886e38, 1.0e-45, Double.greatestFiniteMagnitude, 0x1p53 + 1].map { ("edge-number", .number($0)) }
        edgeValues += [
            ("edge-array", .array([])), ("edge-array", .array([.string("a"), .string("b")])), ("edge-array", .array([.string("a"), .integer(1)])),
            ("edge-array", .array([.integer(1), .number(2.5), .bool(true), .string("x")])), ("edge-array", .array([.integer(Int64.max), .number(-0.0)])),
            ("edge-array", .array([.array([.string("nested")])])), ("edge-array", .array([.string("1"), .string("")])),
            ("edge-object", .object([:])), ("edge-object", .object(["a": .integer(1), "b": .object(["c": .number(2.5)])])),
            ("edge-object", .object(["": .string("empty key"), "a\u{0}b": .bool(false), "é": .array([])])),
        ]
        return edgeValues
    }
}
