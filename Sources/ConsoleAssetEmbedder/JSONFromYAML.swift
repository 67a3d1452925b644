import Foundation

/// A YAML document as JSON text, exactly as `json.dumps(yaml.safe_load(text), indent=2,
/// ensure_ascii=False, allow_nan=False)` writes it: PyYAML's YAML 1.1 rules type the plain
/// scalars, mappings keep their order, a repeated key keeps its first place and its last value.
/// scripts/check-openapi-json.py holds the two byte for byte, on openapi.yaml and on a file of
/// the edge cases (scripts/fixtures/yaml-to-json-cases.yaml).
enum JSONFromYAML {
    /// A value as PyYAML's safe loader constructs it.
    indirect enum Value {
        case null
        case bool(Bool)
        case int(Int)
        case float(Double)
        case string(String)
        case array([Value])
        case object([(key: String, value: Value)])
    }

    static func convert(_ bytes: [UInt8]) throws -> String {
        try write(value(of: YAMLNode.parse(bytes)), indent: "") + "\n"
    }

    static func value(of node: YAMLNode) throws -> Value {
        switch node {
        case .scalar(let text, let plain, let tag): return try scalar(text, plain: plain, tag: tag)
        case .sequence(let items): return .array(try items.map(value(of:)))
        case .mapping(let pairs):
            var keys: [String] = []
            var values: [String: Value] = [:]
            for pair in pairs {
                let key = try jsonKey(value(of: pair.key))
                if values[key] == nil { keys.append(key) }
                values[key] = try value(of: pair.value)
            }
            return .object(keys.map { (key: $0, value: values[$0] ?? .null) })
        }
    }

    /// json.dumps' text for a mapping key: strings as they are, numbers, booleans and null as JSON writes them.
    static func jsonKey(_ value: Value) throws -> String {
        switch value {
        case .string(let text): text
        case .int(let number): String(number)
        case .float(let number): pythonRepr(number)
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .array, .object: throw YAMLError(description: "a mapping key that is a collection has no JSON form")
        }
    }

    // PyYAML's implicit resolvers (yaml/resolver.py), which type a plain scalar by its text.
    static let boolPattern = #"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"#
    static let floatPattern = #"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"#
    static let intPattern = #"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"#
    static let nullPattern = #"^(?:~|null|Null|NULL|)$"#
    static let refusedPatterns = [
        #"^(?:<<)$"#,  // merge keys
        #"^(?:=)$"#,  // the value key
        #"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)?)$"#,  // timestamps: no JSON form
    ]

    static func matches(_ text: String, _ pattern: String) -> Bool {
        text.range(of: pattern, options: .regularExpression) != nil
    }

    static func scalar(_ text: String, plain: Bool, tag: String?) throws -> Value {
        if let tag {
            guard tag == "tag:yaml.org,2002:str" || tag == "!" else { throw YAMLError(description: "'\(text)': tag \(tag) is not supported") }
            return .string(text)
        }
        guard plain else { return .string(text) }
        if matches(text, nullPattern) { return .null }
        if matches(text, boolPattern) { return .bool(["yes", "true", "on"].contains(text.lowercased())) }
        if matches(text, intPattern) { return .int(try integer(text)) }
        if matches(text, floatPattern) { return .float(try float(text)) }
        if refusedPatterns.contains(where: { matches(text, $0) }) {
            throw YAMLError(description: "'\(text)' is a merge key, value key or timestamp for YAML 1.1: quote it")
        }
        return .string(text)
    }

    /// PyYAML's construct_yaml_int: underscores dropped; binary, octal (a leading 0), hexadecimal,
    /// base 60 (`1:30`) or decimal.
    static func integer(_ text: String) throws -> Int {
        var digits = text.replacingOccurrences(of: "_", with: "")
        // The sign stays with the digits, so that Int.min (whose magnitude Int cannot hold) reads.
        var sign = ""
        if digits.first == "-" { sign = "-" }
        if digits.first == "-" || digits.first == "+" { digits.removeFirst() }
        let number: Int?
        if digits == "0" {
            number = 0
        } else if digits.hasPrefix("0b") {
            number = Int(sign + digits.dropFirst(2), radix: 2)
        } else if digits.hasPrefix("0x") {
            number = Int(sign + digits.dropFirst(2), radix: 16)
        } else if digits.hasPrefix("0") {
            number = Int(sign + digits.dropFirst(), radix: 8)
        } else if digits.contains(":") {
            var total: Int? = 0
            for part in digits.split(separator: ":") {
                guard let sum = total, let part = Int(part) else {
                    total = nil
                    break
                }
                let (shifted, overflow) = sum.multipliedReportingOverflow(by: 60)
                let (next, overflowAdding) = shifted.addingReportingOverflow(part)
                total = overflow || overflowAdding ? nil : next
            }
            number = total.map { sign.isEmpty ? $0 : -$0 }
        } else {
            number = Int(sign + digits)
        }
        guard let number else { throw YAMLError(description: "'\(text)': an integer this build cannot hold") }
        return number
    }

    /// PyYAML's construct_yaml_float; infinity and NaN are refused, as json.dumps(allow_nan=False) does.
    static func float(_ text: String) throws -> Double {
        var digits = text.replacingOccurrences(of: "_", with: "").lowercased()
        var sign = 1.0
        if digits.first == "-" { sign = -1 }
        if digits.first == "-" || digits.first == "+" { digits.removeFirst() }
        guard !digits.hasSuffix("inf"), !digits.hasSuffix("nan") else { throw YAMLError(description: "'\(text)' has no JSON form") }
        if digits.contains(":") {
            var total = 0.0
            for part in digits.split(separator: ":") {
                guard let part = Double(part) else { throw YAMLError(description: "'\(text)' is not a number") }
                total = total * 60 + part
            }
            return sign * total
        }
        if digits.hasPrefix(".") { digits = "0" + digits }
        if digits.hasSuffix(".") { digits += "0" }
        guard let number = Double(digits.replacingOccurrences(of: ".e", with: ".0e")) else { throw YAMLError(description: "'\(text)' is not a number") }
        return sign * number
    }

    /// Python's repr of a float: the shortest text that reads back as the same number, which is
    /// what Swift's `description` writes too (`1.0`, `0.5`, `1e-05`, `1e+16`; the check script
    /// compares the two on the fixture's floats).
    static func pythonRepr(_ number: Double) -> String { "\(number)" }

    static func write(_ value: Value, indent: String) -> String {
        let inner = indent + "  "
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .float(let number): return pythonRepr(number)
        case .string(let text): return quoted(text)
        case .array(let items):
            guard !items.isEmpty else { return "[]" }
            return "[\n" + items.map { inner + write($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
        case .object(let members):
            guard !members.isEmpty else { return "{}" }
            return "{\n" + members.map { inner + quoted($0.key) + ": " + write($0.value, indent: inner) }.joined(separator: ",\n") + "\n" + indent + "}"
        }
    }

    /// A JSON string as json.dumps(ensure_ascii=False) writes it: only the quote, the backslash
    /// and control characters escaped.
    static func quoted(_ text: String) -> String {
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
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
