import Foundation

/// What applying an event (or a write's own answer) changed: what the library announces.
struct MirrorChange: Sendable {
    /// Keys whose value or version changed, in order.
    var keys: [String] = []
    /// A font key changed: the seed's `doRefreshNotification` is due.
    var refreshed = false
    /// Navigation events applied, for the session objects that follow them.
    var navigation: [JSON] = []
    /// The mirror was replaced whole (a reload after `reset`).
    var reloaded = false
    /// Who made the change, when its event says (``ChangeAuthor``).
    var author: ChangeAuthor?
    /// Made by this library's own writes (queued here, or answered to it).
    var local = false
    /// An event could not be applied: a merge patch made from a version of its key the mirror
    /// does not hold. The mirror must be read again (as after a `reset`).
    var stale = false

    var isEmpty: Bool { keys.isEmpty && !refreshed && navigation.isEmpty && !reloaded }

    mutating func formUnion(_ other: MirrorChange) {
        for key in other.keys where !keys.contains(where: { $0.sameBytes(as: key) }) { keys.append(key) }
        refreshed = refreshed || other.refreshed
        navigation += other.navigation
        reloaded = reloaded || other.reloaded
        author = author ?? other.author
        local = local || other.local
        stale = stale || other.stale
    }
}

/// Applying the profile's events (and the answers of its own writes) to the mirror, each once.
///
/// Every event carries the version it gave what it changed, from the profile's one sequence.
/// A change is applied only when it is newer than what the mirror knows of the same key (or of
/// the defaults, or of the session): the answer of the mirror's own write and the same event
/// coming later on the stream apply once, and an older event can never undo a newer value.
extension MirrorState {
    static let fontKeys: Set<String> = ["sliderValuekey", "fontSizekey"]

    /// Applies one event of the log (`id`: its position; `nil` for a write's answer, which
    /// does not move the stream's position).
    mutating func apply(eventID id: Int64?, type: String, data: JSON) -> MirrorChange {
        var change = MirrorChange()
        if let id { lastEventID = max(lastEventID, id) }
        guard let version = data["version"]?.int64Value else { return change }
        let author = ChangeAuthor(json: data["author"])
        change.author = author
        switch type {
        case "counter":
            let removed = data["operation"]?.stringValue == "remove"
            apply(key: "numIndex", stored: removed ? nil : data["stringValue"], version: version, author: author, into: &change)
        case "refresh":
            let removed = Set(data["removed"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            for key in data["keys"]?.arrayValue?.compactMap(\.stringValue) ?? [] where Self.fontKeys.contains(key) {
                let value = (key == "sliderValuekey" ? data["sliderValue"] : data["fontSize"])?.doubleValue
                apply(key: key, stored: removed.contains(key) ? nil : value.map(JSON.number), version: version, author: author, into: &change)
            }
        case "preference":
            if case .object(let defaults)? = data["defaults"] {
                guard version > defaultsVersion else { break }
                let touched = Set(registered.map { KeyBytes($0.name) }).union(defaults.map { KeyBytes($0.name) })
                registered = defaults
                defaultsVersion = version
                defaultsAuthor = author
                for key in touched.sorted() where keys[key]?.stored == nil { change.keys.append(key.string) }
            } else if case .object(let changes)? = data["changedDefaults"] {
                // A merge of the defaults: only its keys, each with its default now (null: unregistered).
                guard version > defaultsVersion else { break }
                for member in changes {
                    let index = registered.firstIndex { KeyBytes($0.name) == KeyBytes(member.name) }
                    switch (member.value, index) {
                    case (.null, let index?): registered.remove(at: index)
                    case (.null, nil): break
                    case (let value, let index?): registered[index] = JSON.Member(member.name, value)
                    case (let value, nil): registered.append(JSON.Member(member.name, value))
                    }
                }
                defaultsVersion = version
                defaultsAuthor = author
                for member in changes where keys[KeyBytes(member.name)]?.stored == nil { change.keys.append(member.name) }
            } else if let key = data["key"]?.stringValue, let patch = data["patch"] {
                // A merge (RFC 7396): the patch applies only onto the version it was made from.
                guard version > keys[KeyBytes(key)]?.version ?? 0 else { break }
                guard let from = data["from"]?.int64Value, self.version(ofKey: key) == from,
                      let merged = JSON.merging(patch, into: serverValue(forKey: key))
                else {
                    change.stale = true
                    return change
                }
                apply(key: key, stored: merged, version: version, author: author, into: &change)
            } else if let key = data["key"]?.stringValue {
                let removed = data["removed"]?.boolValue == true
                apply(key: key, stored: removed ? nil : data["value"], version: version, author: author, into: &change)
            }
        case "navigation":
            if applySession(data, version: version) { change.navigation.append(data) }
            return change
        default:
            return change
        }
        preferencesVersion = max(preferencesVersion, version)
        return change
    }

    private mutating func apply(key: String, stored: JSON?, version: Int64, author: ChangeAuthor?, into change: inout MirrorChange) {
        guard version > keys[KeyBytes(key)]?.version ?? 0 else { return }
        keys[KeyBytes(key)] = Key(stored: stored, version: version, author: author)
        change.keys.append(key)
        if Self.fontKeys.contains(key) { change.refreshed = true }
    }

    /// Follows a session's list line: created, changed, deleted or expired. Answers whether the
    /// event was new to the mirror.
    private mutating func applySession(_ data: JSON, version: Int64) -> Bool {
        guard let id = data["session"]?.stringValue else { return false }
        let action = data["action"]?.stringValue ?? ""
        let index = sessions.firstIndex { $0.id == id }
        if let index, sessions[index].version >= version { return false }
        switch action {
        case "create":
            guard index == nil, let stack = data["stack"]?.arrayValue?.compactMap(\.stringValue), let root = stack.first,
                  let top = stack.last
            else { return false }
            sessions.append(Session(id: id, label: data["label"]?.stringValue, version: version, depth: stack.count, root: root, top: top))
        case "delete", "expire":
            guard let index else { return true }
            sessions.remove(at: index)
        default:
            guard let index else { return true }
            sessions[index].version = version
            if let stack = data["stack"]?.arrayValue?.compactMap(\.stringValue), let root = stack.first, let top = stack.last {
                sessions[index].depth = stack.count
                sessions[index].root = root
                sessions[index].top = top
            }
        }
        return true
    }
}
