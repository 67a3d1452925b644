public import NavPrefsCore
import NavPrefsJSON

/// A client's `Idempotency-Key` and what identifies the request it came with.
///
/// Keys are kept per profile: a token of one profile can neither see nor collide with the keys
/// of another. Two requests are "the same" when their ``fingerprint``s are equal; the HTTP layer
/// decides what goes into it (method, route, conditions, body).
public struct IdempotentRequest: Sendable, Hashable {
    public let profile: ProfileName
    /// The key as the client sent it (the HTTP layer bounds its length and characters).
    public let key: String
    /// A digest of everything that makes a retry the same request.
    public let fingerprint: String
    /// The id of the access token that made the request (`nil` in the open mode, where no
    /// token is needed): its records count against ``StoreLimits/maxIdempotencyKeysPerToken``,
    /// whichever profiles they are in. The token is not part of the request's identity: a
    /// retry sent with another token of the profile still finds the key.
    public let token: String?

    public init(profile: ProfileName, key: String, fingerprint: String, token: String? = nil) {
        self.profile = profile
        self.key = key
        self.fingerprint = fingerprint
        self.token = token
    }
}

/// An answer as recorded under an idempotency key: enough to give a retry the same answer,
/// byte for byte, without running the write again.
public struct RecordedAnswer: Sendable, Hashable {
    public struct Field: Sendable, Hashable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public let status: Int
    /// The header fields that belong to the answer itself (`ETag`, `Location`, `Content-Type`).
    public let headers: [Field]
    public let body: String

    public init(status: Int, headers: [Field], body: String) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The answer as it is recorded: whole when its body holds at most `maxBodyBytes`, else
    /// its summary, so that a request of ten bytes never stores a megabyte: status and header
    /// fields (`ETag`: the version, `Location`) as they were, and of the body's JSON object
    /// only the members whose value is a short scalar (`profile`, `version`, `eventId`,
    /// `value`...; 16 at most), plus `"summarized": true`. A body that is no JSON object is dropped.
    public func bounded(maxBodyBytes: Int) -> RecordedAnswer {
        guard body.utf8.count > maxBodyBytes else { return self }
        var summary = JSONObject()
        if case .object(let object)? = try? JSONValue.parse(body) {
            for member in object where summary.count < 16 {
                switch member.value {
                case .object, .array: continue
                case .string(let text) where text.utf8.count > 256: continue
                default: summary[member.key] = member.value
                }
            }
        }
        summary["summarized"] = .bool(true)
        return RecordedAnswer(status: status, headers: headers, body: JSONValue.object(summary).jsonText + "\n")
    }
}

/// What a write under an idempotency key did (``Store/perform(_:remembering:answer:)``).
public enum IdempotentOutcome: Sendable, Hashable {
    /// The write ran now; its answer is recorded under the key in the same transaction.
    /// `rememberedFor`: how long the profile remembers its keys as things stand: the window
    /// (``StoreLimits/idempotencyWindow``), or less while its keyed writes fill its cap
    /// (``StoreLimits/maxIdempotencyKeysPerProfile``) faster: the age of its oldest key then.
    case performed(RecordedAnswer, rememberedFor: Duration)
    /// A request with this key and fingerprint was answered before, within the window: this
    /// is its answer, and nothing was written now.
    case replayed(RecordedAnswer)
    /// The key was used, within the window, by a request with another fingerprint: nothing
    /// was written.
    case keyReused
}
