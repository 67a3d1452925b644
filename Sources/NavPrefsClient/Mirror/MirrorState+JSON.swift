import Foundation

/// The mirror's persisted form, and the server's state answer read into a mirror.
extension MirrorState {
    /// The persisted form: one JSON object, written whole.
    var json: JSON {
        .object([
            .init("format", 1),
            .init("server", .string(server)),
            .init("profile", .string(profile)),
            .init("lastEventId", .integer(lastEventID)),
            .init("loaded", .bool(loaded)),
            .init("preferencesVersion", .integer(preferencesVersion)),
            .init("defaultsVersion", .integer(defaultsVersion)),
            .init("keys", .object(keys.sorted { $0.key < $1.key }.map { key, state in
                .init(key.string, .object([.init("stored", state.stored ?? .null), .init("version", .integer(state.version)),
                                           .init("author", state.author?.json ?? .null)]))
            })),
            .init("defaultsAuthor", defaultsAuthor?.json ?? .null),
            .init("registered", .object(registered)),
            .init("sessions", .array(sessions.map(\.json))),
        ])
    }

    /// Reads the persisted form back; `nil` for anything else (another format, damage).
    init?(persisted json: JSON) {
        guard json["format"]?.int64Value == 1, let server = json["server"]?.stringValue, let profile = json["profile"]?.stringValue,
              case .object(let keys)? = json["keys"], case .object(let registered)? = json["registered"],
              let sessions = json["sessions"]?.arrayValue
        else { return nil }
        self.init(server: server, profile: profile)
        lastEventID = json["lastEventId"]?.int64Value ?? 0
        loaded = json["loaded"]?.boolValue ?? false
        preferencesVersion = json["preferencesVersion"]?.int64Value ?? 0
        defaultsVersion = json["defaultsVersion"]?.int64Value ?? 0
        for member in keys {
            let stored = member.value["stored"].flatMap { stored -> JSON? in stored == .null ? JSON?.none : stored }
            self.keys[KeyBytes(member.name)] = Key(stored: stored, version: member.value["version"]?.int64Value ?? 0,
                                                   author: ChangeAuthor(json: member.value["author"]))
        }
        defaultsAuthor = ChangeAuthor(json: json["defaultsAuthor"])
        self.registered = registered
        self.sessions = sessions.compactMap(Session.init(json:))
    }

    /// The mirror of `GET /v1/profiles/{profile}/state`'s answer.
    init(server: String, profile: String, state: JSON) throws(NavPrefsError) {
        guard let lastEventID = state["lastEventId"]?.int64Value, case .object(let values)? = state["preferences"]?["values"],
              let preferencesVersion = state["preferences"]?["version"]?.int64Value,
              case .object(let registered)? = state["defaults"]?["values"], let defaultsVersion = state["defaults"]?["version"]?.int64Value,
              let sessions = state["sessions"]?.arrayValue
        else { throw .invalidResponse("a profile state without lastEventId, preferences, defaults or sessions") }
        self.init(server: server, profile: profile)
        self.lastEventID = lastEventID
        loaded = true
        self.preferencesVersion = preferencesVersion
        self.defaultsVersion = defaultsVersion
        defaultsAuthor = ChangeAuthor(json: state["defaults"]?["lastChange"]?["author"])
        self.registered = registered
        for member in values {
            guard let value = member.value["value"], let version = member.value["version"]?.int64Value else {
                throw .invalidResponse("preference '\(member.name)' without value or version")
            }
            // `JSON?.none`, not `nil`: JSON is ExpressibleByNilLiteral, so `cond ? value : nil`
            // is a JSON, and a key showing its default would be stored as `null`.
            let stored: JSON? = member.value["source"]?.stringValue == "stored" ? value : JSON?.none
            keys[KeyBytes(member.name)] = Key(stored: stored, version: version, author: ChangeAuthor(json: member.value["lastChange"]?["author"]))
        }
        self.sessions = sessions.compactMap(Session.init(json:))
    }
}

extension MirrorState.Session {
    /// A line of a session list (`GET .../sessions`, the state's `sessions`), or the persisted form.
    init?(json: JSON) {
        guard let id = json["id"]?.stringValue, let version = json["version"]?.int64Value, let depth = json["depth"]?.int64Value,
              let root = json["root"]?.stringValue, let top = json["top"]?.stringValue
        else { return nil }
        self.init(id: id, label: json["label"]?.stringValue, version: version, depth: Int(depth), root: root, top: top,
                  createdAt: json["createdAt"]?.stringValue, updatedAt: json["updatedAt"]?.stringValue)
    }

    var json: JSON {
        .object([
            .init("id", .string(id)), .init("label", label.map(JSON.string) ?? .null), .init("version", .integer(version)),
            .init("depth", .integer(Int64(depth))), .init("root", .string(root)), .init("top", .string(top)),
            .init("createdAt", createdAt.map(JSON.string) ?? .null), .init("updatedAt", updatedAt.map(JSON.string) ?? .null),
        ])
    }
}
