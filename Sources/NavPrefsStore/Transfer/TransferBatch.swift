public import NavPrefsCore

/// The rows of one import transaction: for each table, its rows as the one JSON parameter its
/// statement reads (``SQLDialect/rows(_:alias:columns:)``), built as they arrive so that a batch
/// costs its text and no more.
public struct TransferBatch: Sendable {
    var profiles = RowList()
    var preferences = RowList()
    var defaults = RowList()
    var sessions = RowList()
    var events = RowList()
    var tokens = RowList()
    var secrets = RowList()

    public init() {}

    /// Rows in the batch.
    public var rowCount: Int {
        [profiles, preferences, defaults, sessions, events, tokens, secrets].reduce(0) { $0 + $1.count }
    }

    /// Bytes of JSON the batch's parameters hold.
    public var byteCount: Int {
        [profiles, preferences, defaults, sessions, events, tokens, secrets].reduce(0) { $0 + $1.bytes.count }
    }

    public mutating func add(_ profile: TransferProfile, defaultsVersion: Int64, defaultsChange: LastChange? = nil) {
        profiles.append([.text(profile.name.rawValue), .integer(profile.createdAt), .integer(profile.lastEventID),
                         .integer(defaultsVersion), .integer(profile.preferencesVersion)] + Self.cells(defaultsChange))
    }

    public mutating func addDefaults(_ values: JSONObject, of profile: ProfileName) {
        for (position, member) in values.members.enumerated() {
            defaults.append([.text(profile.rawValue), .text(member.key), .text(member.value.jsonText), .integer(Int64(position))])
        }
    }

    /// A stored value, or a tombstone when `value` is `nil`.
    public mutating func addPreference(_ key: PreferenceKey, value: JSONValue?, version: Int64, lastChange: LastChange? = nil,
                                       of profile: ProfileName) {
        preferences.append([.text(profile.rawValue), .text(key.rawValue), value.map { .text($0.jsonText) } ?? .null, .integer(version)]
                           + Self.cells(lastChange))
    }

    /// A last change as the store keeps it: when, and the author's JSON (NULL when not known).
    private static func cells(_ change: LastChange?) -> [RowList.Cell] {
        guard let change else { return [.null, .null] }
        return [.integer(change.at), change.author.map { .text($0.json.jsonText) } ?? .null]
    }

    /// A session, with the listing columns (depth, root, top) read from its decoded state.
    public mutating func add(_ session: TransferSession, decoded: NavigationSession) {
        sessions.append([.text(session.profile.rawValue), .text(session.id.rawValue), .text(session.state.jsonText),
                         .integer(session.version), .integer(Int64(decoded.stack.count)), .text(decoded.stack.root.id.rawValue),
                         .text(decoded.stack.top.id.rawValue), .integer(session.createdSequence), .integer(session.createdAt),
                         session.label.map { .text($0) } ?? .null, .integer(session.updatedAt ?? session.createdAt)])
    }

    /// An event, with the history it belongs to read from its type and data, as the log records it.
    public mutating func add(_ event: TransferEvent) {
        let subject: String? = if let type = EventType(rawValue: event.type), case .object(let data) = event.data {
            ChangeEvent(type: type, payload: data).subject
        } else {
            nil
        }
        events.append([.text(event.profile.rawValue), .integer(event.id), .text(event.type), .text(event.data.jsonText),
                       .integer(event.createdAt), subject.map { .text($0) } ?? .null])
    }

    public mutating func add(_ token: TokenRecord) {
        tokens.append([.text(token.id), .text(token.hash), token.profile.map { .text($0.rawValue) } ?? .null, .text(token.label),
                       .integer(token.createdAt)])
    }

    public mutating func addSecret(named name: String, value: String) {
        secrets.append([.text(name), .text(value)])
    }

    /// Each table's statement and its rows, in the order they are written (profiles first).
    var statements: [(StoreStatement, RowList)] {
        [(.importProfiles, profiles), (.importPreferences, preferences), (.importDefaults, defaults), (.importSessions, sessions),
         (.importEvents, events), (.importTokens, tokens), (.importSecrets, secrets)].filter { $0.1.count > 0 }
    }
}

/// One table's rows as a JSON array of arrays, appended to in place, as UTF-8 bytes: most cells
/// are JSON texts (event data, session states) written as JSON strings, full of quotes to escape,
/// and escaping byte by byte is several times faster than through `String`'s views.
struct RowList: Sendable {
    enum Cell {
        case text(String)
        case integer(Int64)
        case null
    }

    /// The rows so far, comma-separated, without the enclosing brackets.
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func append(_ cells: [Cell]) {
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "["))
        for (index, cell) in cells.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            switch cell {
            case .text(let value): Self.appendString(value, to: &bytes)
            case .integer(let value): bytes.append(contentsOf: String(value).utf8)
            case .null: bytes.append(contentsOf: "null".utf8)
            }
        }
        bytes.append(UInt8(ascii: "]"))
        count += 1
    }

    /// The parameter: the whole array.
    var json: String { "[" + String(decoding: bytes, as: UTF8.self) + "]" }

    /// `text` as a JSON string (RFC 8259's escapes; everything else, multi-byte UTF-8 included, as is).
    private static let hex = Array("0123456789abcdef".utf8)

    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
