import NavPrefsCore

/// A value's last change as reads show it (`GET .../preferences/{key}`, `GET .../state`):
/// `{"at": "2026-12-01T15:40:00.000Z", "author": {"token": ..., "label": ..., "device": ...}}`,
/// `author` null for a change made before authors were recorded, and the whole member null when
/// the store does not know when the value changed.
enum LastChangeJSON {
    static func value(_ change: LastChange?) -> JSONValue {
        guard let change else { return .null }
        return .object(["at": .string(Timestamp.rfc3339(milliseconds: change.at)), "author": change.author?.json ?? .null])
    }
}
