/// The version of a stored resource: 0 before its first write, then one more with every
/// accepted write. Exposed as the resource's strong `ETag`.
public struct Version: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: Int64

    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// What a resource that was never written has.
    public static let initial = Version(0)

    public var next: Version { Version(rawValue + 1) }
    public var description: String { String(rawValue) }

    public static func < (lhs: Version, rhs: Version) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A client's condition on a write (RFC 9110 §13.1), checked atomically with it.
public enum WritePrecondition: Sendable, Equatable {
    /// `If-Match: *`: the resource must exist.
    case exists
    /// `If-Match: "3", "4"`: the resource must exist at one of these versions. Tags that name no
    /// version of ours are kept out of the list, so an empty list never matches.
    case version(in: [Version])
    /// `If-None-Match: *`: the resource must not exist yet (create, never overwrite).
    case absent
    /// `If-None-Match: "3"` on a write: the resource must not be at any of these versions.
    case noneOf([Version])

    /// Whether a write may proceed on a resource at `current` (`nil`: it does not exist).
    public func admits(_ current: Version?) -> Bool {
        switch self {
        case .exists: return current != nil
        case .version(let versions): return current.map(versions.contains) ?? false
        case .absent: return current == nil
        case .noneOf(let versions): return current.map { !versions.contains($0) } ?? true
        }
    }
}
