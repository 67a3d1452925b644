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
        case .defaults(let profile, let version, let values, let lastChange):
            object.add("record", "defaults")
            object.add("profile", profile.rawValue)
            object.add("version", version)
            object.add(lastChange)
            object.addCarried("values", values)
        case .preference(let profile, let key, let version, let value, let lastChange):
            object.add("record", "preference")
            object.add("profile", profile.rawValue)
            object.add("key", key.rawValue)
            object.add("version", version)
            object.add(lastChange)
            object.addCarried("value", value)
        case .tombstone(let profile, let key, let version, let lastChange):
            object.add("record", "tombstone")
            object.add("profile", profile.rawValue)
            object.add("key", key.rawValue)
            object.add("version", version)
            object.add(lastChange)
        case .session(let session):
            object.add("record", "session")
            object.add("profile", session.profile.rawValue)
            object.add("id", session.id.rawValue)
            object.add("version", session.version)
            object.add("createdSeq", session.createdSequence)
            object.add("createdAt", session.createdAt)
            if let label = session.label { object.add("label", label) }
            if let updatedAt = session.updatedAt { object.add("updatedAt", updatedAt) }
            object.addCarried("state", session.state)
        case .event(let event):
            object.add("record", "event")
            object.add("profile", event.profile.rawValue)
            object.add("id", event.id)
            object.add("type", event.type)
            object.add("createdAt", event.createdAt)
            object.addCarried("data", event.data)
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

extension JSONObjectBuilder {
    /// `lastChange`, `{"at": ms, "author": {...} or null}`, when there is one.
    mutating func add(_ lastChange: LastChange?) {
        guard let lastChange else { return }
        add("lastChange", .object(["at": .integer(lastChange.at), "author": lastChange.author?.json ?? .null]))
    }

    /// `value` as member `name`, or, nested deeper than ``JSONDepth/maxInlineDepth`` (a value
    /// stored before the API bounded depth), its JSON text as `<name>JSON`: a line then nests a
    /// few levels, whatever the value, and every JSON parser reads it.
    mutating func addCarried(_ name: String, _ value: JSONValue) {
        if JSONDepth.of(value) > JSONDepth.maxInlineDepth {
            add(name + "JSON", value.jsonText)
        } else {
            add(name, value)
        }
    }

    /// Registered defaults as an object, or, when one nests deeper than
    /// ``JSONDepth/maxInlineDepth``, as an object of each key's JSON text (`<name>JSON`).
    mutating func addCarried(_ name: String, _ values: JSONObject) {
        guard values.contains(where: { JSONDepth.of($0.value) > JSONDepth.maxInlineDepth }) else {
            return add(name, .object(values))
        }
        add(name + "JSON", .object(JSONObject(values.map { ($0.key, JSONValue.string($0.value.jsonText)) })))
    }
}
