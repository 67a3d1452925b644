import NavPrefsCore

// Seeded generation of JSON values shaped to hit the special cases of Foundation's getters:
// integers at the Int64 and Float boundaries, doubles huge, tiny, whole and near 2^63, strings
// with every prefix NSString's integerValue/doubleValue/boolValue treat specially (whitespace
// of every kind, signs, zeros, YES/t/Y, exponents, non-ASCII digits, astral characters), paths
// for url(forKey:), arrays, dictionaries and nesting.

/// SplitMix64: small, seedable, the same sequence on every machine.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum ValueKind: String, CaseIterable {
    case bool, integer, number, string, array, object
}

struct ValueGenerator {
    var rng: SeededGenerator

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    mutating func value(of kind: ValueKind, depth: Int = 0) -> JSONValue {
        switch kind {
        case .bool: .bool(chance(50))
        case .integer: .integer(integer())
        case .number: .number(number())
        case .string: .string(string())
        case .array: array(depth: depth)
        case .object: object(depth: depth)
        }
    }

    // MARK: Integers

    mutating func integer() -> Int64 {
        switch int(0...9) {
        case 0: return pick([Int64.max, Int64.min, Int64.max - 1, Int64.min + 1, 0, 1, -1, 2, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1, 1 << 24, (1 << 24) + 1, 16_777_217, Int64(Int32.max), Int64(Int32.min)])
        case 1: return Int64.max - Int64(int(0...1000))
        case 2: return Int64.min + Int64(int(0...1000))
        case 3, 4: return Int64.random(in: -1000...1000, using: &rng)
        default:
            let bits = int(1...63)
            let magnitude = Int64.random(in: 0...(Int64.max >> (63 - bits)), using: &rng)
            return chance(50) ? magnitude : -magnitude
        }
    }

    // MARK: Doubles (finite, as JSON numbers)

    mutating func number() -> Double {
        let value: Double
        switch int(0...13) {
        case 0: value = pick([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 0.1, 1e20, -1e20, 1e300, -1e300, 1e-300, Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, 0x1p63, -0x1p63, 0x1p63.nextDown, 0x1p64, 9.2e18, -9.2e18, 0x1p53, 0x1p53 + 2, 3.4028234663852886e38, 3.4028235677973366e38, 1.401298464324817e-45, 7e-46, 123.456, 1e22, 1e23])
        case 1: value = Double.random(in: -1e6...1e6, using: &rng)
        case 2: value = Double.random(in: -1...1, using: &rng)
        case 3: value = Double(Int.random(in: -1_000_000...1_000_000, using: &rng))  // whole
        case 4: value = Double(Int64.random(in: Int64.min...Int64.max, using: &rng))  // whole, large
        case 5:  // near the Int64 bounds
            var near = chance(50) ? 0x1p63 : -0x1p63
            for _ in 0..<int(0...3) { near = chance(50) ? near.nextUp : near.nextDown }
            value = near
        case 6: value = Double(sign: chance(50) ? .minus : .plus, exponent: int(60...1023), significand: Double.random(in: 1..<2, using: &rng))  // huge
        case 7: value = Double(sign: chance(50) ? .minus : .plus, exponent: int(-1074 ... -60), significand: Double.random(in: 1..<2, using: &rng))  // tiny, subnormal
        case 8: value = Double(sign: .plus, exponent: int(100...140), significand: Double.random(in: 1..<2, using: &rng))  // around Float's limits
        case 9: value = Double(bitPattern: rng.next())  // anything
        case 10: value = Double(Int.random(in: -100...100, using: &rng)) / pick([2.0, 4.0, 10.0, 3.0, 1000.0])
        case 11: value = pick([1.0, 10.0, 100.0]) * Double(sign: .plus, exponent: int(0...70), significand: 1)
        case 12: value = Double(Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &rng)))  // Float-exact
        default: value = Double.random(in: -1e19...1e19, using: &rng).rounded(pick([.towardZero, .up, .down, .toNearestOrEven]))
        }
        return value.isFinite ? value : 1.5
    }

    // MARK: Strings

    static let whitespace: [String] = [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}", "\u{2003}", "\u{2009}", "\u{200A}", "\u{200B}", "\u{200C}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{FEFF}", "\u{180E}", "\u{1C}", "\u{1F}"]
    static let signs: [String] = ["+", "-", "++", "+-", "-+", "--", "\u{2212}", "\u{FF0B}", "\u{FF0D}"]
    static let words: [String] = ["YES", "yes", "Yes", "Y", "y", "t", "T", "true", "TRUE", "True", "tRuE", "false", "FALSE", "no", "NO", "n", "N", "f", "F", "inf", "INF", "Infinity", "-inf", "nan", "NaN", "-nan", "0x1p3", "0x10", "0X1F", "1e400", "1e-400", "0e400", "1e308", "2e308", "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "3.4028235e38", "3.4028236e38", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551616", "0.1", ".5", "5.", "+.5", "-.5", "-0", "-0.0", "+0", "00", "007", "0.0000001", "1,5", "1_000", "１２", "٣", "۳", "߃", "²", "½", "Ⅻ", "𝟗", "ｙｅｓ", "ｔ", "tomato", "yellow", "Yak", "abc", "kg", "e5", "E5", ".e5", ".", "..", "e", "-", "+", "", "😀", "😀5", "é", "\u{301}", "\u{301}1", "\0", "\u{FFFF}", "\u{FFFE}", "/", "~", "~/", "~root", "~nobody", "%", ":", "?", "#", "x"]

    mutating func digits(_ range: ClosedRange<Int>) -> String {
        var text = ""
        let count = int(range)
        for _ in 0..<count { text.unicodeScalars.append(Unicode.Scalar(UInt8(int(0...9)) + 0x30)) }
        return text
    }

    /// A numeric-looking string: [ws][sign][ws][zeros][digits][.digits][e[sign]digits][tail].
    mutating func numericString() -> String {
        var text = ""
        if chance(30) { for _ in 0..<int(1...3) { text += pick(Self.whitespace) } }
        if chance(40) { text += pick(Self.signs) }
        if chance(10) { text += pick(Self.whitespace) }
        if chance(20) { text += String(repeating: "0", count: int(1...5)) }
        text += digits(chance(15) ? 15...40 : 0...12)
        if chance(40) { text += "."; text += digits(0...25) }
        if chance(35) {
            text += pick(["e", "E"])
            if chance(50) { text += pick(["+", "-", " ", "--"]) }
            text += pick([digits(0...3), digits(1...2), String(int(290...330)), String(int(30...50)), digits(4...8)])
        }
        if chance(25) { text += pick(Self.words + Self.whitespace + ["x", "5", ".", "e5", "😀"]) }
        return text
    }

    /// A path-like string for url(forKey:).
    mutating func pathString() -> String {
        var text = pick(["", "/", "~", "~/", "~root", "~root/", "~nobody/", "./", "../", "//", "/tmp", "/tmp/", "~\u{301}", "\u{600}", "/root", "", "Sources", "/usr", "~/\u{301}", "~daemon", "~bin/", "/bin", "/lib/", "/sbin"])
        for _ in 0..<int(0...4) {
            text += pick(["a", "tmp", ".", "..", "/", "//", "b c", "é", "e\u{301}", "%41", ":", "a:b", "?", "#", "[x]", "@", "!$&'()*+,;=", "~", "😀", "\0", "\u{7F}", "\t", "\\", "\u{301}", "\u{FEFF}", "udir", "proc", "etc", "Sources", ".build", "Sources/Coercions", "usr"])
            if chance(50) { text += "/" }
        }
        return text
    }

    mutating func fragmentString() -> String {
        var text = ""
        for _ in 0..<int(0...5) {
            switch int(0...5) {
            case 0: text += pick(Self.whitespace)
            case 1: text += pick(Self.signs)
            case 2: text += digits(1...4)
            case 3, 4: text += pick(Self.words)
            default:
                // Any scalar: BMP, astral, controls.
                let scalar = pick([UInt32(int(0...0x7F)), UInt32(int(0x80...0xD7FF)), UInt32(int(0xE000...0xFFFF)), UInt32(int(0x10000...0x10FFFF))])
                if let unicode = Unicode.Scalar(scalar) { text.unicodeScalars.append(unicode) }
            }
        }
        return text
    }

    mutating func string() -> String {
        switch int(0...9) {
        case 0, 1: pick(Self.words)
        case 2, 3, 4: numericString()
        case 5: pick(Self.whitespace) + pick(Self.words)
        case 6: pathString()
        default: fragmentString()
        }
    }

    // MARK: Containers

    mutating func element(depth: Int) -> JSONValue {
        let kinds: [ValueKind] = depth >= 3 ? [.bool, .integer, .number, .string] : ValueKind.allCases
        return value(of: pick(kinds), depth: depth + 1)
    }

    mutating func array(depth: Int) -> JSONValue {
        let count = int(0...5)
        switch int(0...3) {
        case 0: return .array((0..<count).map { _ in .string(string()) })  // a stringArray candidate
        case 1: return .array((0..<count).map { _ in chance(80) ? .string(string()) : element(depth: depth) })
        default: return .array((0..<count).map { _ in element(depth: depth) })
        }
    }

    mutating func object(depth: Int) -> JSONValue {
        var members: [(String, JSONValue)] = []
        for index in 0..<int(0...5) {
            let key = chance(70) ? "k\(index)" : (chance(50) ? fragmentString() : pick(Self.words))
            members.append((key, element(depth: depth)))
        }
        return .object(JSONObject(members))
    }
}
