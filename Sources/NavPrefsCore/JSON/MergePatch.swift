/// JSON Merge Patch (RFC 7396 §2), the meaning of `PATCH .../preferences` and `PATCH .../defaults`
/// for each member's value.
///
/// Why recursive: a client that builds its patch with any merge-patch library sends only the
/// members of a dictionary that changed, and `null` for the ones it removes; replacing the whole
/// stored dictionary with that patch would silently delete every member it left out.
public enum MergePatch {
    /// The RFC's `MergePatch(Target, Patch)`: an object patch merges into the target (a target
    /// that is no object counts as `{}`), a `null` member removes that member at any depth, and
    /// any other patch replaces the target. `nil` stands for "absent": the target before (no
    /// value stored) or the result after (a top-level `null` patch removes the value).
    public static func apply(_ patch: JSONValue, to target: JSONValue?) -> JSONValue? {
        guard case .object(let members) = patch else { return patch == .null ? nil : patch }
        let base: JSONObject = if case .object(let object)? = target { object } else { JSONObject() }
        // A null member removes; anything else merges into what the target holds under its name.
        // One pass over both objects, however many members either has.
        return .object(base.merging(members) { current, given in given == .null ? nil : apply(given, to: current) })
    }
}
