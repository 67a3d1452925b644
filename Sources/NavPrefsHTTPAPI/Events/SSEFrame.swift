import NavPrefsCore

/// Server-Sent Events framing (WHATWG HTML §9.2, semantics E-5): `id:`, `event:` and one `data:`
/// line per event (NavPrefs' data is one line of JSON), a blank line to dispatch; comments start
/// with `:`; `retry:` holds only digits.
enum SSEFrame {
    static func event(_ event: LoggedEvent) -> [UInt8] {
        Array("id: \(event.id)\nevent: \(event.type.rawValue)\ndata: \(event.data)\n\n".utf8)
    }

    /// An event that is not in the log (`reset`, `shutdown`); with an `id`, it also moves the
    /// client's last event id (its next reconnect resumes after it).
    static func control(_ type: EventType, data: String, id: Int64? = nil) -> [UInt8] {
        var text = ""
        if let id { text += "id: \(id)\n" }
        text += "event: \(type.rawValue)\ndata: \(data)\n\n"
        return Array(text.utf8)
    }

    /// Sets the client's last event id without dispatching an event: the spec sets the last
    /// event id before it notices the data is empty.
    static func position(_ id: Int64) -> [UInt8] { Array("id: \(id)\n\n".utf8) }

    static func retry(milliseconds: Int) -> [UInt8] { Array("retry: \(milliseconds)\n\n".utf8) }

    static func comment(_ text: String) -> [UInt8] { Array(": \(text)\n\n".utf8) }
}
