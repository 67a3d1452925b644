extension JSON {
    /// The RFC 7396 merge patch that turns `old` into `new`, so that a `PATCH` replaces a
    /// dictionary as `set(_:forKey:)` and `setValuesForKeys` do, instead of merging into it.
    ///
    /// The server applies a merge patch at every depth: an object sent for a key merges into
    /// the key's object, so `{"a": 1}` sent over `{"a": 0, "b": 2}` would keep `b`. This patch
    /// names `b` with `null` (removed) and recurses into members that are objects on both sides;
    /// anything else is sent whole. Exact against the value the mirror saw; a concurrent change
    /// made elsewhere to a member this device never saw survives (last writer wins per member),
    /// unless the write is ``WritePolicy/basedOnWhatISaw``, whose `If-Match` refuses it.
    static func mergePatch(from old: JSON?, to new: JSON) -> JSON {
        guard case .object(let newMembers) = new, case .object(let oldMembers)? = old else { return new }
        var patch: [Member] = []
        for member in oldMembers where !newMembers.contains(where: { $0.name.utf8.elementsEqual(member.name.utf8) }) {
            patch.append(Member(member.name, .null))
        }
        for member in newMembers {
            let before = oldMembers.first { $0.name.utf8.elementsEqual(member.name.utf8) }?.value
            if before == member.value { continue }  // unchanged: leave it out
            patch.append(Member(member.name, mergePatch(from: before, to: member.value)))
        }
        return .object(patch)
    }
}

extension JSON {
    /// RFC 7396's `MergePatch(target, patch)`, as the server applies it: an object patch merges
    /// into the target (one that is no object counts as `{}`), member by member, a `null`
    /// member removing; members keep their place and new ones come last; anything else replaces
    /// the target. `nil`: absent (a top-level `null` removes the value).
    static func merging(_ patch: JSON, into target: JSON?) -> JSON? {
        // `JSON?.none`, spelled out: `nil` alone would be the literal `JSON.null` here.
        guard case .object(let patchMembers) = patch else { return patch == .null ? JSON?.none : patch }
        var members: [Member] = if case .object(let existing)? = target { existing } else { [] }
        for member in patchMembers {
            let index = members.firstIndex { $0.name.utf8.elementsEqual(member.name.utf8) }
            switch (merging(member.value, into: index.map { members[$0].value }), index) {
            case (nil, let index?): members.remove(at: index)
            case (nil, nil): break
            case (let value?, let index?): members[index] = Member(members[index].name, value)
            case (let value?, nil): members.append(Member(member.name, value))
            }
        }
        return .object(members)
    }
}
