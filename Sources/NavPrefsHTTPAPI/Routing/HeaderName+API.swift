public import MicroHTTPServer

/// The header fields NavPrefs' API defines or follows beyond the standards
/// ``HeaderName`` lists (see openapi.yaml for what each means to a client).
extension HeaderName {
    /// draft-ietf-httpapi-idempotency-key-header: a write sent again under the same key
    /// changes nothing and gets the first answer.
    public static let idempotencyKey = "Idempotency-Key"
    /// On a replayed answer: `true`.
    public static let idempotentReplayed = "Idempotent-Replayed"
    /// On a keyed write's answer: the seconds its profile remembers keys as things stand.
    public static let idempotencyWindow = "Idempotency-Window"
    /// The device a write comes from (``DeviceName``), recorded with its change beside the token.
    public static let navPrefsDevice = "NavPrefs-Device"
    /// nginx's: `no` keeps it from buffering an event stream.
    public static let xAccelBuffering = "X-Accel-Buffering"
}
