// The oracle: real swift-corelibs-foundation UserDefaults, and its answers as JSON.
import Foundation
import NavPrefsCore

#if canImport(Glibc)
    import Glibc
#endif

/// A value as an app would hand it to `set(_:forKey:)`.
func foundationValue(_ value: JSONValue) -> Any {
    switch value {
    case .null: return NSNull()  // never stored at the top level; UserDefaults.set traps on it
    case .bool(let flag): return flag
    case .integer(let number): return Int(number)
    case .number(let number): return number
    case .string(let text): return text
    case .array(let elements): return elements.map(foundationValue) as [Any]
    case .object(let object):
        var dictionary: [String: Any] = [:]
        for member in object.members { dictionary[member.key] = foundationValue(member.value) }
        return dictionary
    }
}

/// Stores through the typed setters an app would call for each top-level kind.
func store(_ value: JSONValue, in defaults: UserDefaults, key: String) {
    switch value {
    case .bool(let flag): defaults.set(flag, forKey: key)
    case .integer(let number): defaults.set(Int(number), forKey: key)
    case .number(let number): defaults.set(number, forKey: key)
    case .string(let text): defaults.set(text, forKey: key)
    default: defaults.set(foundationValue(value), forKey: key)
    }
}

/// An `Any` that Foundation returned, as JSON (nil: a type JSON has no form for).
func json(fromFoundation any: Any) -> JSONValue? {
    let mirror = Mirror(reflecting: any)
    if mirror.displayStyle == .optional {
        guard let child = mirror.children.first else { return .null }
        return json(fromFoundation: child.value)
    }
    if type(of: any) == Bool.self { return .bool(any as! Bool) }
    if type(of: any) == Int.self { return .integer(Int64(any as! Int)) }
    if type(of: any) == Int64.self { return .integer(any as! Int64) }
    if type(of: any) == Double.self { return .number(any as! Double) }
    if type(of: any) == String.self { return .string(any as! String) }
    if let array = any as? [Any] {
        var elements: [JSONValue] = []
        for element in array {
            guard let converted = json(fromFoundation: element) else { return nil }
            elements.append(converted)
        }
        return .array(elements)
    }
    if let dictionary = any as? [String: Any] {
        var members: [(String, JSONValue)] = []
        for (key, element) in dictionary {
            guard let converted = json(fromFoundation: element) else { return nil }
            members.append((key, converted))
        }
        return .object(JSONObject(members))
    }
    return nil
}

/// What the real getter answers, as JSON (the same shape as `PreferenceGetter.read`).
func oracleRead(_ getter: PreferenceGetter, _ defaults: UserDefaults, key: String) -> JSONValue {
    switch getter {
    case .object: return defaults.object(forKey: key).map { json(fromFoundation: $0) ?? .string("<unconvertible \(type(of: $0))>") } ?? .null
    case .string: return defaults.string(forKey: key).map(JSONValue.string) ?? .null
    case .array: return defaults.array(forKey: key).map { json(fromFoundation: $0) ?? .string("<unconvertible>") } ?? .null
    case .dictionary: return defaults.dictionary(forKey: key).map { json(fromFoundation: $0) ?? .string("<unconvertible>") } ?? .null
    case .stringArray: return defaults.stringArray(forKey: key).map { .array($0.map(JSONValue.string)) } ?? .null
    case .integer: return .integer(Int64(defaults.integer(forKey: key)))
    case .float: return .number(Double(defaults.float(forKey: key)))
    case .double: return .number(defaults.double(forKey: key))
    case .bool: return .bool(defaults.bool(forKey: key))
    case .url: return defaults.url(forKey: key).map { .string($0.absoluteString) } ?? .null
    }
}

/// Exact sameness: doubles by bit pattern (any NaN matches any NaN: JSON cannot tell them
/// apart), strings by their Unicode scalars (not canonical equivalence), objects by members in
/// any order.
func same(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.number(let x), .number(let y)): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
    case (.string(let x), .string(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
    case (.array(let xs), .array(let ys)): return xs.count == ys.count && zip(xs, ys).allSatisfy(same)
    case (.object(let x), .object(let y)):
        guard x.count == y.count else { return false }
        return x.members.allSatisfy { member in
            y.members.contains { $0.key.unicodeScalars.elementsEqual(member.key.unicodeScalars) && same($0.value, member.value) }
        }
    case (.bool(let x), .bool(let y)): return x == y
    case (.integer(let x), .integer(let y)): return x == y
    case (.null, .null): return true
    default: return false
    }
}

/// The process's real environment for `url(forKey:)`.
func processEnvironment() -> FileURLEnvironment {
    FileURLEnvironment(
        currentDirectory: FileManager.default.currentDirectoryPath,
        homeDirectory: { user in
            // The reentrant forms: getpwnam/getpwuid share one static buffer, which Foundation
            // (and tests running beside this one) overwrite meanwhile ("/root:/bin/bash" seen).
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>?
            var buffer = [CChar](repeating: 0, count: 4096)
            let status: Int32 =
                if let user { user.withCString { getpwnam_r($0, &entry, &buffer, buffer.count, &found) } }
                else { getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found) }
            guard status == 0, found != nil, let directory = entry.pw_dir else { return nil }
            return String(cString: directory)
        },
        isDirectory: { path in
            var status = stat()
            guard path.withCString({ lstat($0, &status) }) == 0 else { return false }
            return status.st_mode & S_IFMT == S_IFDIR
        }
    )
}

/// Debug text for a value: strings with their scalars escaped, doubles with their bits.
func describe(_ value: JSONValue?) -> String {
    guard let value else { return "<absent>" }
    switch value {
    case .null: return "null"
    case .bool(let flag): return "\(flag)"
    case .integer(let number): return "\(number)"
    case .number(let number): return "\(number)(0x\(String(number.bitPattern, radix: 16)))"
    case .string(let text): return text.debugDescription
    case .array(let elements): return "[" + elements.map(describe).joined(separator: ", ") + "]"
    case .object(let object): return "{" + object.members.map { "\($0.key.debugDescription): \(describe($0.value))" }.joined(separator: ", ") + "}"
    }
}
