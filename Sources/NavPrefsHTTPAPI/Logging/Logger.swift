import Glibc
public import NavPrefsJSON

/// Structured logs: one line per event on standard output, as JSON (for collectors) or text
/// (for people). Messages are constant; data goes in fields.
public final class Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        public init?(name: String) {
            guard let level = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = level
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public enum Format: String, Sendable, CaseIterable {
        case json, text
    }

    public let level: Level
    public let format: Format
    private let sink: LogSink

    public init(level: Level = .info, format: Format = .json, sink: LogSink = .standardOutput) {
        self.level = level
        self.format = format
        self.sink = sink
    }

    public func isEnabled(_ level: Level) -> Bool { level >= self.level }

    public func debug(_ message: String, _ fields: JSONObject = [:]) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: JSONObject = [:]) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: JSONObject = [:]) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: JSONObject = [:]) { log(.error, message, fields) }

    public func log(_ level: Level, _ message: String, _ fields: JSONObject) {
        guard isEnabled(level) else { return }
        var line: String
        switch format {
        case .json:
            var builder = JSONObjectBuilder()
            builder.add("ts", Timestamp.now())
            builder.add("level", level.name)
            builder.add("msg", message)
            for field in fields { builder.add(field.key, field.value) }
            line = builder.json
        case .text:
            line = "\(Timestamp.now()) \(level.name.uppercased()) \(message)"
            for field in fields {
                line += " \(field.key)="
                if case .string(let text) = field.value, !text.contains(" "), !text.isEmpty { line += text } else { line += field.value.jsonText }
            }
        }
        line += "\n"
        sink.write(line, urgent: level >= .warning)
    }

    /// Writes out everything buffered (at exit).
    public func flush() { sink.flush() }
}

/// RFC 3339 UTC timestamps with milliseconds, e.g. `2026-11-30T05:03:30.123Z`.
enum Timestamp {
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let milliseconds = spec.tv_nsec / 1_000_000
        return "\(parts.tm_year + 1900)-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T"
            + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)).\(pad(Int32(milliseconds), width: 3))Z"
    }

    private static func pad(_ value: Int32, width: Int = 2) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
