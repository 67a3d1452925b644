// NSString's numeric readings (integerValue, doubleValue, floatValue, boolValue) exactly as
// swift-corelibs-foundation computes them, in pure Swift over UTF-16 code units.
//
// Sources mirrored (swiftlang/swift-corelibs-foundation):
// - Sources/Foundation/NSString.swift: `NSString.integerValue` (a `Scanner` and `scanInt`),
//   `doubleValue` / `floatValue` (`String.scan(_:locale:locationToScanFrom:to:)` with
//   `CharacterSet.whitespaces` as the skip set), `boolValue` (a `Scanner`, `scanCharacters(from:)`).
// - Sources/Foundation/Scanner.swift: `_NSStringBuffer` (a UTF-16 cursor whose end marker is
//   0xFFFF), `_NSStringBuffer.skip(_:)`, `String.checkForNegative(inBuffer:skipping:)`,
//   `String.scan<T: FixedWidthInteger>` (saturating decimal integers) and
//   `String._scan<T: BinaryFloatingPoint>` (since PR #2820 it ends in `T(String)`).

/// The outcome of one of Foundation's scanners: a value, or the input on which corelibs traps.
public enum FoundationScan<Value: Sendable & Equatable>: Sendable, Equatable {
    case value(Value)
    /// corelibs crashes the process here: `_NSStringBuffer.skip(_:)` force-unwraps
    /// `UnicodeScalar(currentCharacter)`, which is nil for a UTF-16 surrogate, so a string whose
    /// first character after the skipped whitespace (or after the sign and whitespace) lies
    /// outside the BMP (an emoji, say) traps in `integerValue`, `doubleValue` and `floatValue`.
    case trap

    /// The value, or `fallback` where Foundation would crash.
    public func value(or fallback: Value) -> Value {
        if case .value(let value) = self { return value }
        return fallback
    }
}

/// NSString's numeric readings, as corelibs computes them.
public enum NSStringNumeric {
    // MARK: Character classes

    /// `CharacterSet.whitespaces` (CFCharacterSet's whitespace set): tab, and the space
    /// separators U+0020, U+00A0, U+1680, U+2000–U+200A, U+202F, U+205F, U+3000, plus U+200B
    /// ZERO WIDTH SPACE, which CoreFoundation counts as whitespace.
    public static func isWhitespace(_ unit: UInt16) -> Bool {
        switch unit {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// `CharacterSet.whitespacesAndNewlines`: the whitespace set plus U+000A–U+000D, U+0085,
    /// U+2028 and U+2029. This is `Scanner`'s default `charactersToBeSkipped`.
    public static func isWhitespaceOrNewline(_ unit: UInt16) -> Bool {
        switch unit {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: isWhitespace(unit)
        }
    }

    /// Scanner.swift's `decimalValue(_:)`: ASCII digits only (`isASCII` guard), so Arabic-Indic
    /// or fullwidth digits end a number.
    static func asciiDigit(_ unit: UInt16) -> Int? {
        unit >= 0x30 && unit <= 0x39 ? Int(unit - 0x30) : nil
    }

    /// `_NSStringBuffer`: a cursor over the UTF-16 code units; reading past the end gives 0xFFFF
    /// (`EndCharacter`). A literal U+FFFF in the text therefore also reads as the end.
    struct Cursor {
        let units: [UInt16]
        var index = 0

        init(_ text: String) { units = Array(text.utf16) }

        var current: UInt16 { index < units.count ? units[index] : 0xFFFF }

        mutating func advance() { if index < units.count { index += 1 } }

        /// `_NSStringBuffer.skip(_:)`: `while set.contains(UnicodeScalar(currentCharacter)!) && !isAtEnd`.
        /// Returns false where that force-unwrap traps (the current unit is a surrogate).
        mutating func skip(_ isSkipped: (UInt16) -> Bool) -> Bool {
            while true {
                let unit = current
                if unit >= 0xD800 && unit <= 0xDFFF { return false }
                guard isSkipped(unit), unit != 0xFFFF else { return true }
                advance()
            }
        }

        /// `String.checkForNegative(inBuffer:skipping:)`: skip, then an optional `+` or `-`
        /// followed by another skip. Returns nil where a skip traps, else whether it was `-`.
        mutating func sign(skipping isSkipped: (UInt16) -> Bool) -> Bool? {
            guard skip(isSkipped) else { return nil }
            let unit = current
            guard unit == 0x2D || unit == 0x2B else { return false }
            advance()
            guard skip(isSkipped) else { return nil }
            return unit == 0x2D
        }
    }

    // MARK: integerValue

    /// `NSString.integerValue`: `Scanner(string:).scanInt(_:)`, i.e. `String.scan<Int>` with the
    /// skip set `whitespacesAndNewlines`.
    ///
    /// Leading whitespace and newlines are skipped; one `+` or `-` may follow, and more
    /// whitespace may follow the sign (`"- 5"` is -5); then ASCII digits are read as far as they
    /// go (`"12.9"` is 12, `"1e5"` is 1, `"0x1F"` is 0, `"007"` is 7). Overflow saturates at
    /// `Int.max` / `Int.min` and the remaining digits are consumed. No digits: 0.
    public static func integerValue(_ text: String) -> FoundationScan<Int64> {
        var cursor = Cursor(text)
        guard var negative = cursor.sign(skipping: isWhitespaceOrNewline) else { return .trap }
        var result: Int64 = 0
        while let numeral = asciiDigit(cursor.current) {
            // The clamp test of `String.scan<T: FixedWidthInteger>`, term for term.
            if result >= Int64.max / 10
                && (result > Int64.max / 10 || Int64(numeral - (negative ? 1 : 0)) >= Int64.max - result * 10)
            {
                result = negative ? Int64.min : Int64.max
                negative = false
                break
            }
            result = result * 10 + Int64(numeral)
            cursor.advance()
        }
        return .value(negative ? -1 * result : result)
    }

    // MARK: doubleValue / floatValue

    /// `NSString.doubleValue`: `String.scan<Double>` with the skip set `whitespaces` (newlines
    /// are NOT skipped: `"\n5"` is 0.0) and `String._scan<Double>` in base 10.
    public static func doubleValue(_ text: String) -> FoundationScan<Double> {
        scanDecimal(text, as: Double.self)
    }

    /// `NSString.floatValue`: the same reader, converting with `Float(String)`: the decimal text
    /// is rounded once, straight to Float ("3.4028235e38" is `Float.greatestFiniteMagnitude`,
    /// "1e39" is `Float.infinity`).
    public static func floatValue(_ text: String) -> FoundationScan<Float> {
        scanDecimal(text, as: Float.self)
    }

    /// The decimal reader behind `String.scan<T: BinaryFloatingPoint>` (Scanner.swift) since
    /// swift-corelibs-foundation PR #2820 ("Scanner: When parsing floating point, use appropriate
    /// initialiser"): it walks the grammar of the older reader but hands the text it accepted to
    /// `T(String)` (the Swift standard library's correctly rounded `Double(_:)` / `Float(_:)`)
    /// instead of accumulating digits itself.
    ///
    /// 1. After the skip and the optional sign: ASCII digits, then optionally the decimal
    ///    separator (`Locale.current.decimalSeparator`: "." in the C/POSIX/English locales this
    ///    function assumes) and more ASCII digits.
    /// 2. No digit at all before or after the separator: the scan fails and the getter answers
    ///    0 ("", ".", "-", "e5", "inf", "nan", "0x" reads its "0" and stops at "x": 0).
    /// 3. `e` or `E` makes the exponent part of the text: an optional `+`/`-` (no whitespace
    ///    skipped) and ASCII digits. An exponent without digits makes the whole text invalid for
    ///    `T(String)`, so "1e", "1e+", "1e-", "1e 5" and "2ex" read as 0, not 1 or 2.
    /// 4. The text (with its "-") converts with round-to-nearest: "1e400" is +infinity, "1e-400"
    ///    is 0, "-0" is -0.0, "4.9e-324" is the least subnormal, and `floatValue` rounds the
    ///    decimal text straight to Float (no double rounding through Double).
    ///
    /// Trailing text is ignored ("5.5kg" is 5.5).
    static func scanDecimal<T: BinaryFloatingPoint & LosslessStringConvertible>(_ text: String, as _: T.Type) -> FoundationScan<T> {
        var cursor = Cursor(text)
        guard let negative = cursor.sign(skipping: isWhitespace) else { return .trap }
        var accepted = negative ? "-" : ""
        var sawDigit = false
        while let numeral = asciiDigit(cursor.current) {
            accepted.unicodeScalars.append(Unicode.Scalar(UInt8(0x30 + numeral)))
            sawDigit = true
            cursor.advance()
        }
        if cursor.current == 0x2E {  // "."
            accepted += "."
            cursor.advance()
            while let numeral = asciiDigit(cursor.current) {
                accepted.unicodeScalars.append(Unicode.Scalar(UInt8(0x30 + numeral)))
                sawDigit = true
                cursor.advance()
            }
        }
        guard sawDigit else { return .value(0) }
        if cursor.current == 0x65 || cursor.current == 0x45 {  // "e", "E"
            accepted += "e"
            cursor.advance()
            if cursor.current == 0x2D || cursor.current == 0x2B {
                if cursor.current == 0x2D { accepted += "-" }
                cursor.advance()
            }
            while let numeral = asciiDigit(cursor.current) {
                accepted.unicodeScalars.append(Unicode.Scalar(UInt8(0x30 + numeral)))
                cursor.advance()
            }
        }
        return .value(T(accepted) ?? 0)
    }

    // MARK: boolValue

    /// `NSString.boolValue` (corelibs' current form, which checks the letters before the sign).
    /// A `Scanner` skips `whitespacesAndNewlines` before each step:
    /// 1. a first character `t`, `T`, `y` or `Y` answers true ("yes", "true", "Y", "tomato";
    ///    "+t" and "00y" are false);
    /// 2. otherwise one optional `+` or `-`, then any run of "0", then a digit 1–9 answers true
    ///    ("1", "-5", "007", "+ 0 0 3", "0 1"; "0.5", "0", "-0" and "" are false).
    ///
    /// `scanCharacters(from:)` searches with `.caseInsensitive`, which makes CoreFoundation
    /// compare whole composed character sequences: a `t` or a digit followed by a combining
    /// mark, a spacing mark, ZWJ/ZWNJ or a variation selector ("7\u{301}", "t\u{FE0F}") is one
    /// cluster that is not in the set, so it does not count. Swift's grapheme breaking draws the
    /// same line (the harness checks every scalar).
    public static func boolValue(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func skip() {
            while index < scalars.count, scalars[index].value <= 0xFFFF, isWhitespaceOrNewline(UInt16(scalars[index].value)) { index += 1 }
        }
        func current() -> UInt32? { index < scalars.count ? scalars[index].value : nil }
        /// Whether the scalar at `index` is a cluster by itself (nothing extends it).
        func standsAlone() -> Bool {
            guard index + 1 < scalars.count else { return true }
            var pair = String.UnicodeScalarView()
            pair.append(scalars[index])
            pair.append(scalars[index + 1])
            return String(pair).count == 2
        }
        skip()
        switch current() {
        case 0x74, 0x54, 0x79, 0x59: // t T y Y
            if standsAlone() { return true }
            return false
        case 0x2B, 0x2D: index += 1  // + -
        default: break
        }
        skip()
        while current() == 0x30 { index += 1 }
        skip()
        guard let unit = current(), unit >= 0x31 && unit <= 0x39 else { return false }
        return standsAlone()
    }
}
