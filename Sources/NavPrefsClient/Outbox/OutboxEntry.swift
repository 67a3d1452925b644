import Foundation

/// Which version a queued write is sent against.
public enum WritePolicy: Sendable, Hashable {
    /// The write replaces whatever the server holds when it arrives (no condition): what
    /// `UserDefaults.set` does on one device. The default.
    case lastWriterWins
    /// The write holds only if the server still has the version this device saw when the call was
    /// made (`If-Match`). When another device overtook it, the mirror takes the server's value and
    /// ``NavPrefsProfile/conflictNotification`` names the keys and both values.
    case basedOnWhatISaw
}

/// One write in the outbox: the request exactly as it will be sent, its idempotency key (the
/// server applies it once however often it arrives, also across relaunches), and its local effect.
struct OutboxEntry: Sendable {
    /// The `Idempotency-Key`, and the entry's name in the outbox.
    let id: String
    let method: String
    let path: String
    let contentType: String
    /// `If-Match` / `If-None-Match`, when the policy is ``WritePolicy/basedOnWhatISaw``.
    var conditions: [(String, String)]
    let body: JSON?
    let effect: WriteEffect
    let policy: WritePolicy

    var json: JSON {
        .object([
            .init("id", .string(id)), .init("method", .string(method)), .init("path", .string(path)),
            .init("contentType", .string(contentType)),
            .init("conditions", .array(conditions.map { [.string($0.0), .string($0.1)] })),
            .init("body", body ?? .null), .init("effect", effect.json),
            .init("policy", .string(policy == .lastWriterWins ? "lastWriterWins" : "basedOnWhatISaw")),
        ])
    }

    init(id: String = UUID().uuidString, method: String, path: String, contentType: String = "application/json",
         conditions: [(String, String)] = [], body: JSON?, effect: WriteEffect, policy: WritePolicy) {
        self.id = id
        self.method = method
        self.path = path
        self.contentType = contentType
        self.conditions = conditions
        self.body = body
        self.effect = effect
        self.policy = policy
    }

    /// An entry read back from its line; `nil` for anything else (a line cut short by a crash).
    init?(json: JSON) {
        guard let id = json["id"]?.stringValue, let method = json["method"]?.stringValue, let path = json["path"]?.stringValue,
              let contentType = json["contentType"]?.stringValue, let conditions = json["conditions"]?.arrayValue,
              let effect = json["effect"].flatMap(WriteEffect.init(json:)), let policy = json["policy"]?.stringValue
        else { return nil }
        self.init(id: id, method: method, path: path, contentType: contentType,
                  conditions: conditions.compactMap { pair in pair[0]?.stringValue.flatMap { name in pair[1]?.stringValue.map { (name, $0) } } },
                  body: json["body"].flatMap { body -> JSON? in body == .null ? JSON?.none : body }, effect: effect,
                  policy: policy == "basedOnWhatISaw" ? .basedOnWhatISaw : .lastWriterWins)
    }
}
