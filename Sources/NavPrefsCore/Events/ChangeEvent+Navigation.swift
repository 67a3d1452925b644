extension ChangeEvent {
    /// A change of navigation session `session`: a stack change (its ``NavigationTransition/eventPayload``:
    /// operation, from, to, the removed ids, the new stack) or another edit (`action` and the
    /// screen it touched). Ids only, never the screens' contents: a mirror that needs them
    /// reads the session, whose version is the event's.
    public static func navigation(_ profile: ProfileName, session: SessionID, action: String, details: JSONObject = [:],
                                  version: Version) -> ChangeEvent {
        var payload: JSONObject = [
            "profile": .string(profile.rawValue),
            "session": .string(session.rawValue),
            "action": .string(action),
        ]
        for member in details where member.key != "action" { payload[member.key] = member.value }
        payload["version"] = .integer(version.rawValue)
        return ChangeEvent(type: .navigation, payload: payload)
    }
}
