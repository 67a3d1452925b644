/// Writes Prometheus' text exposition format (version 0.0.4): `# HELP` and `# TYPE` once per
/// metric family, then one line per sample, label values escaped.
/// Format: <https://prometheus.io/docs/instrumenting/exposition_formats/>
struct PrometheusText {
    private(set) var text = ""

    mutating func family(_ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.key)=\"\(Self.escape($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.format(value) + "\n"
    }

    mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Int) {
        sample(name, labels, Double(value))
    }

    mutating func sample(_ name: String, _ value: Double) { sample(name, [:], value) }
    mutating func sample(_ name: String, _ value: Int) { sample(name, [:], Double(value)) }

    /// Backslash, double quote and line feed are the characters a label value escapes.
    static func escape(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return String(value)
    }
}
