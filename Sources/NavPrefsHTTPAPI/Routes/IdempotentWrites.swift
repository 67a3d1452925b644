import MicroHTTPServer
import NavPrefsCore
import NavPrefsCrypto
import NavPrefsStore

/// Runs the writes of the routes, under the request's `Idempotency-Key` when it sends one
/// (draft-ietf-httpapi-idempotency-key-header).
///
/// Without the header a write is only the write (``Store/perform(_:)``): the hot path pays
/// one header lookup. With it, the store claims the key, runs the write and records the answer
/// this route renders, all in the write's transaction
/// (``Store/perform(_:remembering:answer:)``): a retry within the window gets that answer again
/// (status, body, `ETag`, `Location`) with `Idempotent-Replayed: true`, and changes nothing,
/// on whichever instance it lands. The key is kept per profile, and counted against the cap of
/// the access token that sent it (none in the open mode); a retry is "the same request" when its
/// method, path, query, `If-Match`, `If-None-Match` and body are.
enum IdempotentWrites {
    /// Runs `write` for `request`, answering with `answer` of its value.
    /// - Parameter renderOn: where `answer` runs when the write's answer may be as large as a
    ///   whole profile (a collection's write answers every value): a lane of its own, so that
    ///   neither the store's writer nor the event loop renders it while others wait. `nil`: on
    ///   the event loop.
    /// - Throws: 400 `invalid-idempotency-key` for a key that is empty, too long or not printable ASCII.
    /// The write is made by the request's author (``APIRequest/author``), recorded in its own
    /// transaction with what it changes.
    static func run<Value: Sendable>(_ request: APIRequest, profile: ProfileName, store: any Store, _ write: StoreWrite<Value>,
                                     renderOn lane: LargeWorkLane? = nil,
                                     answer: @escaping @Sendable (Value) -> HTTPResponse) throws(APIError) -> APIResult {
        // Made by the request's author; weighed by what the request carried (the store commits
        // heavy writes apart from light ones).
        let write = write.by(request.author).weighing(request.http.body.count)
        guard let key = try key(of: request.http) else {
            guard let lane else { return .pending { reply in store.perform(write) { reply.render($0, with: answer) } } }
            return .pending { reply in store.perform(write) { reply.render($0, on: lane, with: answer) } }
        }
        // The token's id, not the profile, bounds what an admin token's keys add up to.
        let remembered = IdempotentRequest(profile: profile, key: key, fingerprint: fingerprint(of: request.http),
                                           token: request.caller.tokenID)
        // The route's answer is rendered in the write's transaction, which records it; the
        // loop only adds what says whether it was replayed.
        let record: @Sendable (Value) -> RecordedAnswer = { recorded(answer($0)) }
        let respond = keyedResponse(instance: request.http.path)
        return .pending { reply in store.perform(write, remembering: remembered, answer: record) { reply.render($0, with: respond) } }
    }

    /// The answer to a write under a key: the recorded answer, with how long the key is
    /// remembered or that it was replayed, or the refusal of a key used for another request.
    static func keyedResponse(instance: String) -> @Sendable (IdempotentOutcome) -> HTTPResponse {
        { outcome in
            switch outcome {
            case .performed(let answer, let remembered):
                var response = response(answer)
                // The seconds the profile remembers its keys as things stand (the window, or
                // less while its keyed writes fill its cap faster); not recorded, since a
                // replay says nothing about the profile's rate now.
                response.headers.add(HeaderName.idempotencyWindow, String(remembered.components.seconds))
                return response
            case .replayed(let answer):
                var response = response(answer)
                response.headers.add(HeaderName.idempotentReplayed, "true")
                return response
            case .keyReused:
                return APIError(.idempotencyKeyReused,
                                "This Idempotency-Key was used for another request (its method, path, conditions or body differ) while it is remembered; use a new key for a new request.")
                    .response(instance: instance)
            }
        }
    }

    /// The key, if the request sends one: 1 to 255 visible ASCII characters but `"` (no
    /// spaces), optionally as a quoted string (the draft's Structured Field form, `"abc"`).
    static func key(of request: HTTPRequest) throws(APIError) -> String? {
        guard let value = request.headers[HeaderName.idempotencyKey] else { return nil }
        var key = Substring(value)
        if key.count >= 2, key.first == "\"", key.last == "\"" { key = key.dropFirst().dropLast() }
        guard !key.isEmpty, key.utf8.count <= 255, key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }) else {
            throw APIError(.invalidIdempotencyKey,
                           "An Idempotency-Key is 1 to 255 visible ASCII characters, no spaces (a UUID, say), optionally in double quotes.")
        }
        return String(key)
    }

    /// What makes a retry the same request, as a SHA-256 digest: method, path, query (as
    /// parsed, in order), conditions and body.
    static func fingerprint(of request: HTTPRequest) -> String {
        var text = request.method + "\n" + request.rawPath + "\n"
        text += request.query.map { $0.name + ($0.value.map { "=" + $0 } ?? "") }.joined(separator: "&") + "\n"
        text += (request.headers[HeaderName.ifMatch] ?? "") + "\n" + (request.headers[HeaderName.ifNoneMatch] ?? "") + "\n"
        text += String(decoding: request.body, as: UTF8.self)
        return Crypto.sha256Hex(text)
    }

    /// A route's answer as the store records it: status, its own header fields, body.
    static func recorded(_ response: HTTPResponse) -> RecordedAnswer {
        let body: String = if case .bytes(let bytes) = response.body { String(decoding: bytes, as: UTF8.self) } else { "" }
        return RecordedAnswer(status: response.status, headers: response.headers.map { RecordedAnswer.Field(name: $0.name, value: $0.value) },
                              body: body)
    }

    static func response(_ answer: RecordedAnswer) -> HTTPResponse {
        HTTPResponse(status: answer.status, headers: HTTPHeaders(answer.headers.map { ($0.name, $0.value) }), bytes: Array(answer.body.utf8))
    }
}
