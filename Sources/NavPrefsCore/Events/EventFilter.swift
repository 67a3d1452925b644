/// Which event types a subscriber wants (`?types=refresh,counter`). Without a filter a
/// subscriber gets every type (N-2). `reset` and `shutdown` always pass: they are about the
/// stream itself, not about a kind of change.
public struct EventFilter: Sendable, Hashable {
    /// The types asked for; `nil` for all.
    public let types: Set<EventType>?

    public static let all = EventFilter(types: nil)

    public init(types: Set<EventType>?) { self.types = types }

    /// Parses a comma-separated list of type names (at least one; no empty members).
    public init(parsing text: String) throws(EventFilterError) {
        var types = Set<EventType>()
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = name.trimmingWhitespaceSubstring()
            guard let type = EventType(rawValue: String(trimmed)), !type.isControl else {
                throw .unknownType(String(trimmed.prefix(40)))
            }
            types.insert(type)
        }
        self.types = types
    }

    public func admits(_ type: EventType) -> Bool {
        type.isControl || types?.contains(type) ?? true
    }
}

/// A `types` value that names no event type a subscriber can ask for.
public enum EventFilterError: Error, Hashable, CustomStringConvertible {
    case unknownType(String)

    public var description: String {
        switch self {
        case .unknownType(let name):
            "'\(name)' is not an event type; use " + EventType.changeTypes.map(\.rawValue).joined(separator: ", ")
        }
    }
}

extension EventType {
    /// Types that describe the stream rather than a change; never filtered out, never logged.
    public var isControl: Bool { self == .reset || self == .shutdown || self == .revoked }

    /// The types subscribers can filter on.
    public static var changeTypes: [EventType] { allCases.filter { !$0.isControl } }
}

extension Substring {
    func trimmingWhitespaceSubstring() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
