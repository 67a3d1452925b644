/// Who made a change: the access token that vouched for the write, by its public id and its
/// label (never its secret: the id is the part of a token that is shown in lists anyway), or
/// `open` on a service without tokens, and the device the client named (``DeviceName``).
///
/// Recorded in the change's own transaction: in its event's data (`"author"`), which the stream,
/// the JSON pages and a key's history show, and beside the stored value, which reads show as the
/// value's last change. The label is the token's label when the change was made: revoking the
/// token later leaves the record as it was.
public struct ChangeAuthor: Sendable, Hashable {
    /// The token of changes made on a service without tokens (the open mode): no token vouched.
    public static let openToken = "open"

    /// The access token's public id (12 hex digits), or ``openToken``.
    public let token: String
    /// The token's label, when a token vouched.
    public let label: String?
    /// The device the client named, if it named one.
    public let device: String?

    /// An author; `token` `nil` is the open mode.
    public init(token: String?, label: String?, device: String?) {
        self.token = token ?? Self.openToken
        self.label = token == nil ? nil : label
        self.device = device
    }

    /// `{"token":"94571c6fefa3","label":"ops","device":"kitchen-ipad"}`; `label` and `device`
    /// only when there is one.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("token", .string(token))]
        if let label { members.append(("label", .string(label))) }
        if let device { members.append(("device", .string(device))) }
        return .object(JSONObject(members))
    }

    /// The author as ``json`` wrote it; `nil` for anything else.
    public init?(_ value: JSONValue) {
        guard case .object(let object) = value, case .string(let token)? = object["token"] else { return nil }
        var label: String?, device: String?
        switch object["label"] {
        case .string(let text)?: label = text
        case nil: break
        default: return nil
        }
        switch object["device"] {
        case .string(let text)?: device = text
        case nil: break
        default: return nil
        }
        self.token = token
        self.label = label
        self.device = device
    }

    /// How a person reads it: the device when one was named, else the token's label, else its id.
    public var displayName: String {
        if let device { return device }
        if let label, !label.isEmpty { return label }
        return token == Self.openToken ? "the open mode" : "token " + token
    }
}

/// When a stored value (or a removal, or the registered defaults) last changed, and who changed
/// it: what `GET .../preferences/{key}` and `GET .../state` show beside a value.
public struct LastChange: Sendable, Hashable {
    /// Milliseconds since 1970, by the database's clock (as the event log's times).
    public let at: Int64
    /// `nil` for a change made before authors were recorded.
    public let author: ChangeAuthor?

    public init(at: Int64, author: ChangeAuthor?) {
        self.at = at
        self.author = author
    }
}

/// Which history a change is listed in (`GET .../preferences/{key}/history`, `.../counter/history`,
/// `.../font/history`): a key's own for ordinary keys; the counter's for `numIndex`, whose changes
/// log `counter` events; the font settings' for both font keys, whose changes log one `refresh`
/// for the pair. The event log records it with each entry, so that a history is one indexed read.
public enum HistorySubject {
    /// The subject of the counter's changes.
    public static let counter = WellKnownKey.counter.rawValue
    /// The subject of the font settings' changes (both keys): a key that never logs a
    /// `preference` event, so no ordinary key's history can be taken for it.
    public static let font = WellKnownKey.sliderValue.rawValue

    /// The history `key`'s changes are listed in.
    public static func of(_ key: PreferenceKey) -> String {
        switch WellKnownKey.view(of: key) {
        case .counter: counter
        case .font: font
        case .none: key.rawValue
        }
    }
}
