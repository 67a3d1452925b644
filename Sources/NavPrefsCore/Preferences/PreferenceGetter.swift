// UserDefaults' typed getters over JSON values, exactly as swift-corelibs-foundation answers them
// on Linux (Swift 6.3.1), in pure Swift: no Foundation, no C (semantics P-0..P-4). docs/api.md's
// "Typed reads" table lists each rule; Tests/NavPrefsFidelityTests proves them against a real
// `UserDefaults(suiteName:)`, directly and through the HTTP API.
//
// How a JSON value is stored (what an app does): `true`/`false` -> `set(Bool)`, an integer ->
// `set(Int)`, a number -> `set(Double)`, a string -> `set(String)`, an array -> `set([Any])`, an
// object -> `set([String: Any])`. corelibs keeps them as NSNumber/CFBoolean/NSString/NSArray/
// NSDictionary and `object(forKey:)` unboxes every NSNumber to its "optimal" Swift type
// (`NSNumber._swiftValueOfOptimalType`): CFBoolean -> Bool, an SInt64 -> Int, except
// `Int.max` itself, which comes back as `Int64` (the test is `int64Value < Int.max`), a float64 -> Double.
// Each getter then tries Swift casts (`as? Int`, `as? Double`, ...) that do not convert between
// numeric types, so an `Int64` matches none of them.

/// One of UserDefaults' getters.
public enum PreferenceGetter: String, Sendable, CaseIterable {
    case object, string, array, dictionary, stringArray, integer, float, double, bool, url

    /// The getter's answer for `value` (nil: the key is absent), as JSON:
    /// `integer` -> `.integer`; `float` -> `.number(Double(the Float))`; `double` -> `.number`
    /// (`float` and `double` may be ±infinity for strings such as "1e400", never NaN; the JSON
    /// writer must decide what to print);
    /// `bool` -> `.bool`; `string` -> `.string` or `.null`; `array`, `dictionary`,
    /// `stringArray`, `object` -> the value or `.null`; `url` -> `.string(absoluteString)` or `.null`.
    ///
    /// Where corelibs would crash (see `FoundationScan.trap`) the answer is the getter's
    /// "nothing found" value (0 / 0.0): a deliberate choice.
    public func read(_ value: JSONValue?, environment: FileURLEnvironment = .fixed) -> JSONValue {
        switch self {
        case .object: value ?? .null
        case .string: Self.string(value).map(JSONValue.string) ?? .null
        case .array: if case .array? = value { value! } else { .null }
        case .dictionary: if case .object? = value { value! } else { .null }
        case .stringArray: Self.stringArray(value)
        case .integer: .integer(Self.integer(value))
        case .float: .number(Double(Self.float(value)))
        case .double: .number(Self.double(value))
        case .bool: .bool(Self.bool(value))
        case .url: Self.url(value, environment: environment).map(JSONValue.string) ?? .null
        }
    }

    /// Whether corelibs itself would crash answering this getter for `value`: `integer`,
    /// `float` and `double` on a string whose first character after the skipped whitespace
    /// (and sign) lies outside the Basic Multilingual Plane. The harness avoids those calls.
    public func trapsInFoundation(_ value: JSONValue?) -> Bool {
        guard case .string(let text)? = value else { return false }
        switch self {
        case .integer: return NSStringNumeric.integerValue(text) == .trap
        case .float: return NSStringNumeric.floatValue(text) == .trap
        case .double: return NSStringNumeric.doubleValue(text) == .trap
        default: return false
        }
    }

    // MARK: The stored value as `object(forKey:)` sees it

    /// `Int.max` is the one stored integer that comes back as `Int64`, not `Int`, and so is
    /// invisible to every typed getter (`NSNumber._swiftValueOfOptimalType`, NSNumber.swift:
    /// `int64Value < Int.max ? Int(int64Value) : int64Value`).
    private static func isUnboxedAsInt64(_ number: Int64) -> Bool { number == Int64.max }

    // MARK: string(forKey:)

    /// `string(forKey:)` (UserDefaults.swift, after swift-corelibs-foundation PR #4780): a
    /// String as it is; a Bool, Int or Double as `NSNumber(value:).stringValue`, which is the
    /// NSNumber's `description`: "1"/"0" for booleans, the decimal integer, and Swift's
    /// `Double.description` for doubles ("2.0", "-0.0", "0.1", "1e+20", "1e-300",
    /// "9.223372036854776e+18"); `Int.max` (unboxed as Int64), arrays and objects: nil.
    static func string(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .bool(let flag)?: flag ? "1" : "0"
        case .integer(let number)?: isUnboxedAsInt64(number) ? nil : String(number)
        case .number(let number)?: number.description
        default: nil
        }
    }

    // MARK: stringArray(forKey:)

    /// `stringArray(forKey:)`: `object(forKey:) as? [String]`: an array whose elements are all
    /// strings (the empty array too); any other element (a number is not converted), or a
    /// non-array: nil.
    static func stringArray(_ value: JSONValue?) -> JSONValue {
        guard case .array(let elements)? = value else { return .null }
        for element in elements {
            guard case .string = element else { return .null }
        }
        return .array(elements)
    }

    // MARK: integer(forKey:)

    /// `integer(forKey:)` (UserDefaults.swift, after PR #4781): an Int as it is; a Bool as 1/0;
    /// a Double as `NSNumber(value:).intValue` (CFNumberGetValue to a C long: truncation toward
    /// zero; outside Int64, x86-64's conversion gives `Int.min`, e.g. 1e20 and -1e20); a String
    /// as `NSString.integerValue`; `Int.max`, arrays, objects and absence: 0.
    static func integer(_ value: JSONValue?) -> Int64 {
        switch value {
        case .integer(let number)?: isUnboxedAsInt64(number) ? 0 : number
        case .bool(let flag)?: flag ? 1 : 0
        case .number(let number)?: truncatingLikeX86(number)
        case .string(let text)?: NSStringNumeric.integerValue(text).value(or: 0)
        default: 0
        }
    }

    /// C's `(long)double` as x86-64 computes it (`cvttsd2si`): toward zero, and the "integer
    /// indefinite" value `Int64.min` for NaN and anything outside [-2^63, 2^63).
    /// (An arm64 build saturates instead: Int.max for 1e20.)
    static func truncatingLikeX86(_ number: Double) -> Int64 {
        guard number.isFinite, number >= -0x1p63, number < 0x1p63 else { return Int64.min }
        return Int64(number)
    }

    // MARK: float(forKey:)

    /// `float(forKey:)` (after PR #4782): a Bool as 1/0; an Int as `Float(Int)` (round to
    /// nearest even); a Double as `Float(Double)` (round to nearest, overflow to ±infinity:
    /// 1e300 is inf, 1e-300 is 0, -0.0 stays -0.0); a String as `NSString.floatValue` (its own
    /// Float-precision reader, not `Float(doubleValue)`); `Int.max`, arrays, objects, absence: 0.
    static func float(_ value: JSONValue?) -> Float {
        switch value {
        case .integer(let number)?: isUnboxedAsInt64(number) ? 0 : Float(number)
        case .bool(let flag)?: flag ? 1 : 0
        case .number(let number)?: Float(number)
        case .string(let text)?: NSStringNumeric.floatValue(text).value(or: 0)
        default: 0
        }
    }

    // MARK: double(forKey:)

    /// `double(forKey:)` (after PR #4783): a Double as it is; a Bool as 1/0; an Int as
    /// `Double(Int)` (round to nearest even above 2^53); a String as `NSString.doubleValue`;
    /// `Int.max`, arrays, objects, absence: 0.
    static func double(_ value: JSONValue?) -> Double {
        switch value {
        case .integer(let number)?: isUnboxedAsInt64(number) ? 0 : Double(number)
        case .bool(let flag)?: flag ? 1 : 0
        case .number(let number)?: number
        case .string(let text)?: NSStringNumeric.doubleValue(text).value(or: 0)
        default: 0
        }
    }

    // MARK: bool(forKey:)

    /// `bool(forKey:)`: a Bool as it is; an Int or Double when nonzero (-0.0 is false,
    /// `Int.min` is true); a String as `NSString.boolValue`; `Int.max` (unboxed as Int64, so it
    /// matches no cast), arrays, objects and absence: false.
    static func bool(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(let flag)?: flag
        case .integer(let number)?: isUnboxedAsInt64(number) ? false : number != 0
        case .number(let number)?: number != 0
        case .string(let text)?: NSStringNumeric.boolValue(text)
        default: false
        }
    }

    // MARK: url(forKey:)

    /// `url(forKey:)`: for a String, `URL(fileURLWithPath: expandingTildeInPath)` (see
    /// `FileURL`); every other JSON value and absence: nil.
    static func url(_ value: JSONValue?, environment: FileURLEnvironment) -> String? {
        guard case .string(let text)? = value else { return nil }
        return FileURL.absoluteString(forStoredString: text, in: environment)
    }
}
