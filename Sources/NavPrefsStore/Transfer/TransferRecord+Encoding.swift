import NavPrefsCore

extension TransferRecord {
    /// The record as one line of JSON, without the newline. Members come in a fixed order and
    /// values in ``JSONWriter``'s canonical form, so the same content always gives the same bytes.
    public var line: String {
        var object = JSONObjectBuilder()
        switch self {
        case .header(let header):
            object.add("record", "header")
            object.add("format", TransferFormat.name)
            object.add("version", header.formatVersion)
            var source = JSONObjectBuilder()
            source.add("navprefs", header.navprefsVersion)
            source.add("store", header.store)
            object.add("source", json: source.json)
            object.add("secrets", header.includesSecrets)
        case .profile(let profile):
            object.add("record", "profile")
            object.add("name", profile.name.rawValue)
            object.add("createdAt", profile.createdAt)
            object.add("lastEventId", profile.lastEventID)
            object.add("preferencesVersion", profile.preferencesVersion)
        case .defaults(let profile, let version, let values):
            object.add("record", "defaults")
            object.add("profile", profile.rawValue)
            object.add("version", version)
            object.add("values", .object(values))
        case .preference(let profile, let key, let version, let value):
            object.add("record", "preference")
            object.add("profile", profile.rawValue)
            object.add("key", key.rawValue)
            object.add("version", version)
            object.add("value", value)
        case .tombstone(let profile, let key, let version):
            object.add("record", "tombstone")
            object.add("profile", profile.rawValue)
            object.add("key", key.rawValue)
            object.add("version", version)
        case .session(let session):
            object.add("record", "session")
            object.add("profile", session.profile.rawValue)
            object.add("id", session.id.rawValue)
            object.add("version", session.version)
            object.add("createdSeq", session.createdSequence)
            object.add("createdAt", session.createdAt)
            if let label = session.label { object.add("label", label) }
            if let updatedAt = session.updatedAt { object.add("updatedAt", updatedAt) }
            object.add("state", session.state)
        case .event(let event):
            object.add("record", "event")
            object.add("profile", event.profile.rawValue)
            object.add("id", event.id)
            object.add("type", event.type)
            object.add("createdAt", event.createdAt)
            object.add("data", event.data)
        case .token(let token):
            object.add("record", "token")
            object.add("id", token.id)
            if let profile = token.profile { object.add("profile", profile.rawValue) } else { object.addNull("profile") }
            object.add("label", token.label)
            object.add("createdAt", token.createdAt)
            object.add("hash", token.hash)
        case .secret(let name, let value):
            object.add("record", "secret")
            object.add("name", name)
            object.add("value", value)
        case .end(let counts):
            object.add("record", "end")
            object.add("profiles", counts.profiles)
            object.add("preferences", counts.preferences)
            object.add("tombstones", counts.tombstones)
            object.add("defaults", counts.defaults)
            object.add("sessions", counts.sessions)
            object.add("events", counts.events)
            object.add("tokens", counts.tokens)
            object.add("secrets", counts.secrets)
        }
        return object.json
    }
}
