import MicroHTTPServer
public import NavPrefsCore

/// Strong entity tags for versioned resources (`"7"`), and the conditional request headers
/// that carry them (RFC 9110 §8.8.3, §13.1).
public enum ETag {
    public static func format(_ version: Version) -> String { "\"\(version.rawValue)\"" }

    /// `If-Match` as a write precondition: `*`, or the versions its strong tags name. Weak tags
    /// (`W/"7"`) never match under the strong comparison If-Match requires, and tags that are not
    /// ours can match nothing; both are left out (an empty list fails every write).
    static func precondition(from headers: HTTPHeaders) -> WritePrecondition? {
        guard headers.contains(HeaderName.ifMatch) else { return nil }
        let members = headers.listMembers(for: HeaderName.ifMatch)
        if members.contains("*") { return .exists }
        return .version(in: members.compactMap { strongVersion($0) })
    }

    /// The condition of a write: `If-Match` when present (RFC 9110 §13.2.2 evaluates it first),
    /// else `If-None-Match` (`*`: only if the resource does not exist yet).
    static func writePrecondition(from headers: HTTPHeaders) -> WritePrecondition? {
        if let match = precondition(from: headers) { return match }
        guard headers.contains(HeaderName.ifNoneMatch) else { return nil }
        let members = headers.listMembers(for: HeaderName.ifNoneMatch)
        if members.contains("*") { return .absent }
        return .noneOf(members.compactMap { strongVersion($0.hasPrefix("W/") ? $0.dropFirst(2) : $0) })
    }

    /// Whether `If-None-Match` matches `version` (weak comparison, RFC 9110 §13.1.2): the GET
    /// then answers 304.
    static func noneMatchHits(_ headers: HTTPHeaders, _ version: Version) -> Bool {
        guard headers.contains(HeaderName.ifNoneMatch) else { return false }  // the usual case, allocation-free
        return headers.listMembers(for: HeaderName.ifNoneMatch).contains {
            $0 == "*" || strongVersion($0.hasPrefix("W/") ? $0.dropFirst(2) : $0) == version
        }
    }

    /// The header whose condition a write was held to: `If-Match` when present (RFC 9110 §13.2.2
    /// evaluates it first), else `If-None-Match`.
    static func failedCondition(in headers: HTTPHeaders?) -> String {
        guard let headers, !headers.contains(HeaderName.ifMatch), headers.contains(HeaderName.ifNoneMatch) else { return HeaderName.ifMatch }
        return HeaderName.ifNoneMatch
    }

    private static func strongVersion(_ tag: Substring) -> Version? {
        guard tag.count >= 3, tag.first == "\"", tag.last == "\"", let number = Int64(tag.dropFirst().dropLast()),
              number >= 0 else { return nil }
        return Version(number)
    }
}
