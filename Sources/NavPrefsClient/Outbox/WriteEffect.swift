import Foundation

/// What a queued write does to the mirror before the server has answered: the local half of a
/// local-first write. The mirror shows the server's state with every queued effect applied on
/// top, in order, so getters answer the new value at once and counter steps add up.
enum WriteEffect: Sendable, Equatable {
    /// Keys set (`value`) or removed (`nil`: a registered default shows again).
    case values([Assignment])
    /// The counter moved by this many (negative: a decrement).
    case counterStep(Int64)
    /// The counter set to 0.
    case counterReset
    /// The font settings as the server will store them (the slider rounded, the size + 17).
    case font(slider: Double, size: Double)
    /// Defaults registered (merged into the profile's).
    case defaults([Assignment])

    struct Assignment: Sendable, Equatable {
        let key: String
        let value: JSON?
    }

    /// The keys whose value the effect can change.
    func keys(registered: [String]) -> [String] {
        switch self {
        case .values(let assignments), .defaults(let assignments): assignments.map(\.key)
        case .counterStep, .counterReset: ["numIndex"]
        case .font: ["sliderValuekey", "fontSizekey"]
        }
    }

    /// `key`'s stored value after the effect, given the stored value before (`nil`: none) and
    /// what is registered for it (a counter step counts from the default when nothing is stored).
    func apply(toStored stored: JSON?, key: String, registered: JSON?) -> JSON? {
        switch self {
        case .values(let assignments):
            guard let assignment = assignments.last(where: { $0.key.sameBytes(as: key) }) else { return stored }
            return assignment.value
        case .defaults:
            return stored  // a default shows where nothing is stored; the mirror reads it
        case .counterStep(let step):
            guard key == "numIndex" else { return stored }
            let base = stored ?? registered
            let current = base?.int64Value ?? base?.stringValue.flatMap { Int64($0) } ?? 0
            let (sum, overflow) = current.addingReportingOverflow(step)
            return overflow ? stored : .string(String(sum))
        case .counterReset:
            return key == "numIndex" ? .string("0") : stored
        case .font(let slider, let size):
            switch key {
            case "sliderValuekey": return .number(slider)
            case "fontSizekey": return .number(size)
            default: return stored
            }
        }
    }

    // MARK: Persisted form (the outbox's lines)

    var json: JSON {
        switch self {
        case .values(let assignments): .object([.init("values", Self.json(assignments))])
        case .defaults(let assignments): .object([.init("defaults", Self.json(assignments))])
        case .counterStep(let step): .object([.init("step", .integer(step))])
        case .counterReset: .object([.init("reset", true)])
        case .font(let slider, let size): .object([.init("font", [.number(slider), .number(size)])])
        }
    }

    init?(json: JSON) {
        if case .object(let members)? = json["values"] {
            self = .values(members.map { Assignment(key: $0.name, value: $0.value == .null ? JSON?.none : $0.value) })
        } else if case .object(let members)? = json["defaults"] {
            self = .defaults(members.map { Assignment(key: $0.name, value: $0.value == .null ? JSON?.none : $0.value) })
        } else if let step = json["step"]?.int64Value {
            self = .counterStep(step)
        } else if json["reset"] != nil {
            self = .counterReset
        } else if let slider = json["font"]?[0]?.doubleValue, let size = json["font"]?[1]?.doubleValue {
            self = .font(slider: slider, size: size)
        } else {
            return nil
        }
    }

    private static func json(_ assignments: [Assignment]) -> JSON {
        .object(assignments.map { JSON.Member($0.key, $0.value ?? .null) })
    }
}
