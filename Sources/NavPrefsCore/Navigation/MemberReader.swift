/// Reads the members of one JSON object strictly, remembering which it read so that
/// ``finish()`` can refuse the rest: every `init(json:)` of the navigation types is a sequence
/// of reads followed by `finish()`.
///
/// `null` reads as "absent" for optional members, so a client may send the `null`s our own
/// responses contain and get the same value back (round trip).
struct MemberReader {
    let path: String
    private let object: JSONObject
    private var read: Set<String> = []

    init(_ value: JSONValue, at path: String) throws(NavigationDecodingError) {
        guard case .object(let object) = value else {
            throw NavigationDecodingError(path: path, problem: .wrongType(expected: "an object", found: value.typeName))
        }
        self.object = object
        self.path = path
    }

    func pointer(_ key: String) -> String { JSONPointer.appending(key, to: path) }

    /// Whether the member is present with a value other than `null`.
    func has(_ key: String) -> Bool {
        guard let value = object[key] else { return false }
        return value != .null
    }

    /// The member's value, `nil` when absent or `null`.
    mutating func value(_ key: String) -> JSONValue? {
        read.insert(key)
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    mutating func required(_ key: String) throws(NavigationDecodingError) -> JSONValue {
        guard let value = value(key) else { throw NavigationDecodingError(path: pointer(key), problem: .missingMember) }
        return value
    }

    /// The member decoded by `decode` at its own path, `nil` when absent or `null`.
    mutating func decode<T>(_ key: String, _ decode: (JSONValue, String) throws(NavigationDecodingError) -> T)
        throws(NavigationDecodingError) -> T? {
        guard let value = value(key) else { return nil }
        return try decode(value, pointer(key))
    }

    /// An array member whose elements are decoded by `decode` at `/key/index`.
    mutating func decodeArray<T>(_ key: String, _ decode: (JSONValue, String) throws(NavigationDecodingError) -> T)
        throws(NavigationDecodingError) -> [T]? {
        guard let value = value(key) else { return nil }
        let path = pointer(key)
        guard case .array(let elements) = value else {
            throw NavigationDecodingError(path: path, problem: .wrongType(expected: "an array", found: value.typeName))
        }
        var result: [T] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            result.append(try decode(element, JSONPointer.appending(index, to: path)))
        }
        return result
    }

    /// A member that is itself a navigation value (an object with its own strict members).
    mutating func decode<T: StrictJSONDecodable>(_ key: String, as type: T.Type) throws(NavigationDecodingError) -> T? {
        try decode(key) { value, path throws(NavigationDecodingError) in try T(json: value, at: path) }
    }

    mutating func decodeArray<T: StrictJSONDecodable>(_ key: String, of type: T.Type) throws(NavigationDecodingError) -> [T]? {
        try decodeArray(key) { value, path throws(NavigationDecodingError) in try T(json: value, at: path) }
    }

    // The scalar members make their JSON Pointer only for an error: made for every member read,
    // the pointers were 4 % of a navigation write's CPU, and only an error reads them.

    mutating func string(_ key: String) throws(NavigationDecodingError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw Self.wrongType("a string", value, pointer(key)) }
        return text
    }

    mutating func bool(_ key: String) throws(NavigationDecodingError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw Self.wrongType("a boolean", value, pointer(key)) }
        return flag
    }

    mutating func number(_ key: String) throws(NavigationDecodingError) -> Double? {
        guard let value = value(key) else { return nil }
        guard let number = value.numericValue, number.isFinite else { throw Self.wrongType("a number", value, pointer(key)) }
        return number
    }

    mutating func choice<T>(_ key: String, _ type: T.Type) throws(NavigationDecodingError) -> T?
    where T: RawRepresentable & CaseIterable, T.RawValue == String {
        guard let value = value(key) else { return nil }
        if case .string(let text) = value, let choice = T(rawValue: text) { return choice }
        return try Self.choice(value, at: pointer(key), T.self)  // which says why not
    }

    /// Refuses the first member that was never read, in the order the client sent them.
    func finish() throws(NavigationDecodingError) {
        if let unknown = object.keys.first(where: { !read.contains($0) }) {
            throw NavigationDecodingError(path: pointer(unknown), problem: .unknownMember)
        }
    }

    // MARK: Scalars, for members and array elements alike

    static func string(_ value: JSONValue, at path: String) throws(NavigationDecodingError) -> String {
        guard case .string(let text) = value else { throw wrongType("a string", value, path) }
        return text
    }

    static func bool(_ value: JSONValue, at path: String) throws(NavigationDecodingError) -> Bool {
        guard case .bool(let flag) = value else { throw wrongType("a boolean", value, path) }
        return flag
    }

    /// Integers and numbers alike (`20` and `20.0` are the same width); always finite, as the
    /// parser refuses anything else.
    static func number(_ value: JSONValue, at path: String) throws(NavigationDecodingError) -> Double {
        guard let number = value.numericValue, number.isFinite else { throw wrongType("a number", value, path) }
        return number
    }

    static func choice<T>(_ value: JSONValue, at path: String, _ type: T.Type) throws(NavigationDecodingError) -> T
    where T: RawRepresentable & CaseIterable, T.RawValue == String {
        let text = try string(value, at: path)
        guard let choice = T(rawValue: text) else {
            let names = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw NavigationDecodingError(path: path, problem: .invalidValue("must be one of \(names)"))
        }
        return choice
    }

    static func screenID(_ value: JSONValue, at path: String) throws(NavigationDecodingError) -> ScreenID {
        let text = try string(value, at: path)
        do {
            return try ScreenID(text)
        } catch {
            throw NavigationDecodingError(path: path, problem: .invalidValue(error.description))
        }
    }

    private static func wrongType(_ expected: String, _ value: JSONValue, _ path: String) -> NavigationDecodingError {
        NavigationDecodingError(path: path, problem: .wrongType(expected: expected, found: value.typeName))
    }
}

/// The navigation values with a strict `init(json:at:)`, so readers can decode them as members.
protocol StrictJSONDecodable {
    init(json: JSONValue, at path: String) throws(NavigationDecodingError)
}

/// Checks shared by the `validate` functions: lengths in Unicode scalars, array sizes.
/// The path is made only for an error (callers build it with ``JSONPointer``).
enum Limit {
    static func text(_ text: String?, at path: @autoclosure () -> String) throws(NavigationDecodingError) {
        guard let text else { return }
        let length = text.unicodeScalars.count
        guard length <= NavigationLimits.maxTextLength else {
            throw NavigationDecodingError(path: path(), problem: .tooLong(limit: NavigationLimits.maxTextLength, length: length))
        }
    }

    static func count(_ count: Int, limit: Int, at path: @autoclosure () -> String) throws(NavigationDecodingError) {
        guard count <= limit else { throw NavigationDecodingError(path: path(), problem: .tooMany(limit: limit, count: count)) }
    }
}

/// `.string(text)`, or `.null` for `nil`: responses list every member, unset ones as `null`.
func jsonString(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

/// `value`'s JSON, or `.null` for `nil`.
func jsonOrNull<T>(_ value: T?, _ json: (T) -> JSONValue) -> JSONValue { value.map(json) ?? .null }
