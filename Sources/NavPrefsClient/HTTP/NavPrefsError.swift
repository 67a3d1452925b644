public import Foundation

/// Why a call of the library failed.
///
/// A `LocalizedError`, so that `localizedDescription` (what an alert shows) reads the server's
/// own problem detail rather than Foundation's "error 2".
public enum NavPrefsError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// 412: what the write was based on changed on the server in the meantime (another device
    /// wrote first). Nothing was written; the mirror gets the other write from the event stream.
    /// `currentVersion` is the server's version now (`nil`: the value no longer exists).
    case preconditionFailed(currentVersion: Int64?, problem: Problem)
    /// The server refused the request (4xx, 5xx) with a problem+json answer.
    case refused(Problem)
    /// The server could not be reached, or the connection broke before an answer came. A write
    /// may or may not have been applied: repeat it with the same idempotency key to be sure.
    case transport(String)
    /// An answer that is not what the API describes.
    case invalidResponse(String)
    /// A value `UserDefaults` cannot store (a `null`, also inside an array or an object), or an
    /// argument the API cannot carry; nothing was sent.
    case invalidArgument(String)
    /// The waiting task was cancelled (a queued write stays queued).
    case cancelled
    /// The mirror or the outbox could not be read or written on this device.
    case storage(String)

    public var description: String {
        switch self {
        case .preconditionFailed(let current, let problem):
            "precondition failed (current version \(current.map(String.init) ?? "none")): \(problem.detail)"
        case .refused(let problem): "\(problem.status) \(problem.type): \(problem.detail)"
        case .transport(let reason): "transport: \(reason)"
        case .invalidResponse(let reason): "invalid response: \(reason)"
        case .invalidArgument(let reason): "invalid argument: \(reason)"
        case .cancelled: "cancelled"
        case .storage(let reason): "storage: \(reason)"
        }
    }

    /// What went wrong without the kind's prefix when it is a transport failure (`cannot connect
    /// to ...`), else ``description``: the reason a dropped stream reports, which becomes a
    /// ``transport(_:)`` again and must not say "transport" twice.
    var transportReason: String {
        if case .transport(let reason) = self { reason } else { description }
    }

    /// The server's problem detail when it answered one, else what went wrong, in a sentence.
    public var errorDescription: String? {
        switch self {
        case .preconditionFailed(_, let problem): "Another device changed this first: \(problem.detail)"
        case .refused(let problem): problem.detail
        case .transport(let reason): "The NavPrefs server could not be reached: \(reason)"
        case .invalidResponse(let reason): "The NavPrefs server answered something unexpected: \(reason)"
        case .invalidArgument(let reason): "Not a value NavPrefs can store: \(reason)"
        case .cancelled: "The operation was cancelled."
        case .storage(let reason): "The local copy of the preferences could not be saved: \(reason)"
        }
    }

    /// The problem's title (`Precondition Failed`...), when the server answered one.
    public var failureReason: String? { problem.flatMap { $0.title.isEmpty ? nil : $0.title } }

    /// The problem the server answered, if it answered one.
    public var problem: Problem? {
        switch self {
        case .preconditionFailed(_, let problem), .refused(let problem): problem
        default: nil
        }
    }
}

/// An error answer of the server (RFC 9457 problem details).
public struct Problem: Sendable, Hashable, CustomStringConvertible {
    /// A stable URN, e.g. `urn:navprefs:problem:precondition-failed`.
    public let type: String
    public let title: String
    public let status: Int
    public let detail: String
    /// The whole answer, with its extension members (`currentVersion`, `uikitMessage`...).
    public let body: JSON

    init(status: Int, body: JSON) {
        self.status = status
        self.body = body
        type = body["type"]?.stringValue ?? "about:blank"
        title = body["title"]?.stringValue ?? ""
        detail = body["detail"]?.stringValue ?? "HTTP \(status)"
    }

    public var description: String { "\(status) \(type): \(detail)" }
}
