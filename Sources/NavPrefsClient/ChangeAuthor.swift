import Foundation

/// Who made a change, as the server recorded it: the access token that vouched for the write
/// (its public id, never its secret, and its label), or `open` on a server without tokens, and
/// the device the writing client named (``NavPrefsClient/deviceName``).
public struct ChangeAuthor: Sendable, Hashable, CustomStringConvertible {
    /// The token of changes made on a server without tokens.
    public static let openToken = "open"

    /// The access token's id (12 hexadecimal digits), or ``openToken``.
    public let token: String
    /// The token's label when the change was made.
    public let label: String?
    /// The device the writing client named.
    public let device: String?

    public init(token: String, label: String? = nil, device: String? = nil) {
        self.token = token
        self.label = label
        self.device = device
    }

    /// How a person reads it: the device, else the token's label, else the token.
    public var description: String { device ?? label ?? (token == Self.openToken ? "a client without a token" : "token " + token) }

    /// The author of a change's data (`"author": {...}`); `nil` for anything else.
    init?(json: JSON?) {
        guard let json, let token = json["token"]?.stringValue else { return nil }
        self.init(token: token, label: json["label"]?.stringValue, device: json["device"]?.stringValue)
    }

    var json: JSON {
        var members: [JSON.Member] = [.init("token", .string(token))]
        if let label { members.append(.init("label", .string(label))) }
        if let device { members.append(.init("device", .string(device))) }
        return .object(members)
    }

    /// Whether `other` is the same writer: the same token (or both without one) and the same
    /// device name. A label is the server's word, not the client's: it does not count.
    func isSameWriter(as other: ChangeAuthor) -> Bool { token == other.token && device == other.device }
}

/// The device name as the library sends it in `NavPrefs-Device`.
enum DeviceNameField {
    /// The server's bound, in characters.
    static let maxLength = 64

    /// `name` as the server accepts it: control characters left out, at most ``maxLength``
    /// characters; `nil` when nothing is left.
    static func cleaned(_ name: String) -> String? {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars where scalar.properties.generalCategory != .control {
            guard scalars.count < maxLength else { break }
            scalars.append(scalar)
        }
        let text = String(scalars).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    /// The field's value: visible ASCII and spaces as themselves, everything else (and `%`)
    /// percent-encoded as UTF-8, since a header field's bytes have no charset.
    static func encoded(_ name: String) -> String {
        var allowed = CharacterSet()
        allowed.insert(charactersIn: Unicode.Scalar(0x20)...Unicode.Scalar(0x7E))
        allowed.remove("%")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    }

    /// The device name of a client that names none: the host name (`Anas-iPhone.local`, `debian`).
    static var hostName: String? { cleaned(ProcessInfo.processInfo.hostName) }
}

/// Who made a change the library announces, and whether it was this device.
struct ChangeOrigin: Sendable {
    let author: ChangeAuthor?
    let isFromThisDevice: Bool
}

extension JSON {
    /// A change's data with `author` as its author, unless it names one already (the answer of
    /// this client's own write stands for an event it made).
    func authored(by author: ChangeAuthor) -> JSON {
        guard case .object(var members) = self, !members.contains(where: { $0.name == "author" }) else { return self }
        members.append(.init("author", author.json))
        return .object(members)
    }
}
