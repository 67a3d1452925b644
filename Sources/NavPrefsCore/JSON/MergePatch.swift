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
        var merged: JSONObject = if case .object(let object)? = target { object } else { JSONObject() }
        for member in members {
            // A null member removes; anything else merges into what the target holds under its name.
            merged[member.key] = member.value == .null ? nil : apply(member.value, to: merged[member.key])
        }
        return .object(merged)
    }
}
