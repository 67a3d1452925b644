import Glibc
import NavPrefsJSON
public import NavPrefsCore
import Synchronization

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

    /// A field's value.
    public enum Value: Sendable {
        case string(String)
        case integer(Int64)
        case number(Double)
        /// Milliseconds with three decimals, from whole microseconds (durations, without
        /// formatting a floating-point number on every request).
        case milliseconds(microseconds: Int64)
        case bool(Bool)
        case json(JSONValue)
    }

    public let level: Level
    public let format: Format
    private let sink: LogSink
    private let clock = TimestampFormatter()

    public init(level: Level = .info, format: Format = .json, sink: LogSink = .standardOutput) {
        self.level = level
        self.format = format
        self.sink = sink
    }

    public func isEnabled(_ level: Level) -> Bool { level >= self.level }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.error, message, fields) }

    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, Value>) {
        guard isEnabled(level) else { return }
        log(level, message, fields.map { ($0.key, $0.value) })
    }

    /// Writes one line. The line is built byte by byte: one per request, so it is a hot path.
    public func log(_ level: Level, _ message: String, _ fields: [(String, Value)]) {
        guard isEnabled(level) else { return }
        var line = LineBuffer(capacity: 256)
        switch format {
        case .json:
            line.append("{\"ts\":\"")
            clock.append(to: &line)
            line.append("\",\"level\":\"")
            line.append(raw: level.name)
            line.append("\",\"msg\":")
            line.append(jsonString: message)
            for (key, value) in fields {
                line.append(",")
                line.append(jsonString: key)
                line.append(":")
                line.append(value, bareStrings: false)
            }
            line.append("}\n")
        case .text:
            clock.append(to: &line)
            line.append(" ")
            line.append(raw: level.name.uppercased())
            line.append(" ")
            line.append(raw: message)
            for (key, value) in fields {
                line.append(" ")
                line.append(raw: key)
                line.append("=")
                line.append(value, bareStrings: true)
            }
            line.append("\n")
        }
        sink.write(line.bytes, urgent: level >= .warning)
    }

    /// The request line, written once per request: the same line as
    /// `log(.info, "request", [("request_id", ...), ...])`, built without the field array and
    /// its boxed values (the hot path of every read showed them in profiles). The method, route
    /// template and address are known to need no escaping when they are plain ASCII tokens.
    public func request(id: String, method: String, route: String, status: Int, microseconds: Int64, remote: String) {
        guard isEnabled(.info) else { return }
        guard format == .json else {
            log(.info, "request", [("request_id", .string(id)), ("method", .string(method)), ("route", .string(route)),
                                   ("status", .integer(Int64(status))), ("duration_ms", .milliseconds(microseconds: microseconds)),
                                   ("remote", .string(remote))])
            return
        }
        var line = LineBuffer(capacity: 224)
        line.append("{\"ts\":\"")
        clock.append(to: &line)
        line.append("\",\"level\":\"info\",\"msg\":\"request\",\"request_id\":")
        line.append(jsonString: id)
        line.append(",\"method\":")
        line.append(jsonString: method)
        line.append(",\"route\":")
        line.append(jsonString: route)
        line.append(",\"status\":")
        line.append(Int64(status))
        line.append(",\"duration_ms\":")
        line.append(milliseconds: microseconds)
        line.append(",\"remote\":")
        line.append(jsonString: remote)
        line.append("}\n")
        sink.write(line.bytes, urgent: false)
    }

    /// Writes out everything buffered (at exit).
    public func flush() { sink.flush() }

    /// Batches lines on a flusher thread until ``stopBatching()`` (see ``LogSink``).
    public func startBatching() { sink.start() }

    /// Writes out pending lines and stops the flusher; later lines are written at once.
    public func stopBatching() { sink.stop() }
}

/// RFC 3339 UTC timestamps with milliseconds (`2026-11-30T05:03:30.123Z`); the date and time up
/// to the second are formatted once per second.
final class TimestampFormatter: Sendable {
    private let cached = Mutex<(second: Int, prefix: String)>((-1, ""))

    /// Appends the current time to a log line.
    func append(to line: inout LineBuffer) {
        let spec = Self.wallClock()
        line.append(raw: prefix(forSecond: spec.tv_sec))
        let milliseconds = spec.tv_nsec / 1_000_000
        if milliseconds < 100 { line.append("0") }
        if milliseconds < 10 { line.append("0") }
        line.append(Int64(milliseconds))
        line.append("Z")
    }

    func now() -> String {
        let spec = Self.wallClock()
        return prefix(forSecond: spec.tv_sec) + Self.pad(spec.tv_nsec / 1_000_000, 3) + "Z"
    }

    /// The wall clock, to the nanosecond. C fills the struct it is given, laid out by the compiler.
    private static func wallClock() -> timespec {
        var spec = timespec()
        unsafe clock_gettime(CLOCK_REALTIME, &spec)
        return spec
    }

    /// `2026-11-30T05:03:30.`, formatted once per second.
    private func prefix(forSecond second: Int) -> String {
        cached.withLock { cached -> String in
            if cached.second == second { return cached.prefix }
            // The API's own RFC 3339 writer, without the milliseconds and the zone ("000Z").
            let prefix = String(Timestamp.rfc3339(milliseconds: Int64(second) * 1000).dropLast(4))
            cached = (second, prefix)
            return prefix
        }
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

extension LineBuffer {
    /// Appends a field's value as JSON; with `bareStrings`, a string that needs no quoting goes
    /// in bare (text format: `route=/healthz`).
    mutating func append(_ value: Logger.Value, bareStrings: Bool) {
        switch value {
        case .string(let text) where bareStrings && !text.isEmpty && !text.contains(" ") && !JSONWriter.needsEscaping(text):
            append(raw: text)
        case .string(let text): append(jsonString: text)
        case .integer(let number): append(number)
        case .number(let number): append(raw: JSONValue.number(number).jsonText)
        case .milliseconds(let microseconds): append(milliseconds: microseconds)
        case .bool(let flag): append(flag ? "true" : "false")
        case .json(let json): append(raw: json.jsonText)
        }
    }
}
