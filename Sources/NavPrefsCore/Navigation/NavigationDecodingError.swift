/// Why a navigation value sent by a client is refused: where (a JSON Pointer, RFC 6901, into
/// the request body) and what is wrong. Decoding is strict: unknown members, wrong types,
/// missing required members and values beyond ``NavigationLimits`` are all refused, never
/// ignored or clamped, so a typo (`"tilte"`) cannot silently mean "no title".
public struct NavigationDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Problem: Hashable, Sendable {
        /// A member this object does not have (strict decoding).
        case unknownMember
        /// A required member is absent (or `null`).
        case missingMember
        /// The member has the wrong JSON type, e.g. `expected: "string", found: "integer"`.
        case wrongType(expected: String, found: String)
        /// The value has the right type but is not acceptable; the text says why.
        case invalidValue(String)
        /// A text longer than the limit, in Unicode scalars.
        case tooLong(limit: Int, length: Int)
        /// An array with more elements than the limit.
        case tooMany(limit: Int, count: Int)
        /// Both this member and the named one are set, and they mean the same thing
        /// (`leftBarButtonItem` and `leftBarButtonItems`).
        case conflicts(with: String)
    }

    /// JSON Pointer to the offending member (`""` is the whole body):
    /// `/navigationItem/rightBarButtonItems/2/title`.
    public let path: String
    public let problem: Problem

    public init(path: String, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public var description: String {
        let place = path.isEmpty ? "the body" : path
        return switch problem {
        case .unknownMember: "\(place) is not a known member"
        case .missingMember: "\(place) is required"
        case .wrongType(let expected, let found): "\(place) must be \(expected), not \(found)"
        case .invalidValue(let reason): "\(place): \(reason)"
        case .tooLong(let limit, let length): "\(place) has \(length) characters; at most \(limit) are allowed"
        case .tooMany(let limit, let count): "\(place) has \(count) elements; at most \(limit) are allowed"
        case .conflicts(let other): "\(place) cannot be combined with \(other)"
        }
    }
}

/// JSON Pointer (RFC 6901) building: `~` and `/` in a member name are escaped as `~0` and `~1`.
enum JSONPointer {
    static func appending(_ key: String, to path: String) -> String {
        guard key.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return path + "/" + key
        }
        var escaped = ""
        for character in key {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.append(character)
            }
        }
        return path + "/" + escaped
    }

    static func appending(_ index: Int, to path: String) -> String { path + "/" + String(index) }
}
