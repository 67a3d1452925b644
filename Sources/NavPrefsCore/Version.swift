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

/// A client's condition on a write (`If-Match`, RFC 9110 §13.1.1), checked atomically with it.
public enum WritePrecondition: Sendable, Equatable {
    /// `If-Match: *`: the resource must exist.
    case exists
    /// `If-Match: "3", "4"`: the resource must exist at one of these versions. Tags that name no
    /// version of ours are kept out of the list, so an empty list never matches.
    case version(in: [Version])

    /// Whether a write may proceed on a resource at `current` (`nil`: it does not exist).
    public func admits(_ current: Version?) -> Bool {
        guard let current else { return false }
        switch self {
        case .exists: return true
        case .version(let versions): return versions.contains(current)
        }
    }
}
