/// Parses a `text/event-stream` as the WHATWG HTML standard says (§9.2.6): lines end with CR,
/// LF or CRLF, also across chunks; `data:` lines join with LF; `id:` sets the last event id at
/// the next blank line, even one without data (how NavPrefs tells a new stream where it
/// starts); `retry:` holds only digits; lines starting with `:` are comments (heartbeats).
struct SSEParser: Sendable {
    /// What one chunk of the stream held, in order.
    enum Item: Sendable, Equatable {
        /// A dispatched event, with the last event id in force when it was dispatched.
        case event(type: String, data: String, lastEventID: String)
        /// A blank line moved the last event id without an event (`id: 5` then a blank line).
        case position(String)
        /// The reconnection time the server asks for, in milliseconds.
        case retry(Int)
        /// A comment (`: heartbeat`): proof the connection is alive.
        case comment
    }

    private var line: [UInt8] = []
    private var sawCR = false
    private var started = false
    private var data = ""
    private var hasData = false
    private var eventType = ""
    private var idBuffer = ""
    /// The last event id dispatched so far (what a reconnect sends as `Last-Event-ID`).
    private(set) var lastEventID = ""

    init(lastEventID: String = "") {
        self.lastEventID = lastEventID
        idBuffer = lastEventID
    }

    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [Item] where Bytes.Element == UInt8 {
        var items: [Item] = []
        for byte in bytes {
            if sawCR {
                sawCR = false
                if byte == 0x0A { continue }  // the LF of a CRLF
            }
            switch byte {
            case 0x0D:
                sawCR = true
                endLine(into: &items)
            case 0x0A:
                endLine(into: &items)
            default:
                line.append(byte)
            }
        }
        return items
    }

    private mutating func endLine(into items: inout [Item]) {
        var bytes = line[...]
        line.removeAll(keepingCapacity: true)
        if !started {
            started = true
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }  // a leading BOM
        }
        guard !bytes.isEmpty else { return dispatch(into: &items) }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix(":") { return items.append(.comment) }
        let field: Substring, value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            var rest = text[text.index(after: colon)...]
            if rest.first == " " { rest = rest.dropFirst() }
            value = rest
        } else {
            field = text[...]
            value = ""
        }
        switch field {
        case "event": eventType = String(value)
        case "data":
            data += value
            data += "\n"
            hasData = true
        case "id" where !value.contains("\u{0}"): idBuffer = String(value)
        case "retry" where !value.isEmpty && value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }):
            if let milliseconds = Int(value) { items.append(.retry(milliseconds)) }
        default: break
        }
    }

    private mutating func dispatch(into items: inout [Item]) {
        let moved = idBuffer != lastEventID
        lastEventID = idBuffer
        defer {
            data = ""
            hasData = false
            eventType = ""
        }
        guard hasData else {
            if moved { items.append(.position(lastEventID)) }
            return
        }
        if data.hasSuffix("\n") { data.removeLast() }
        items.append(.event(type: eventType.isEmpty ? "message" : eventType, data: data, lastEventID: lastEventID))
    }
}
