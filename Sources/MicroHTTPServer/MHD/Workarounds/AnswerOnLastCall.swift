/// Workaround ``MHDWorkarounds/answerOnLastCall``: admission's answer to a request that
/// announced no body is held until libmicrohttpd's last call of the access handler.
///
/// libmicrohttpd 0.9.75 closes the connection after any response queued on the access
/// handler's first call ("response was queued early, refuse to read body"), even when there is
/// no body to refuse. Queued on the last call, the same answer keeps the connection open.
/// ``RequestPhases`` holds one; the in-memory transport runs the same machine, so it answers
/// on the same call.
struct AnswerOnLastCall: Sendable {
    /// Off only in tests that show libmicrohttpd's behaviour without the workaround.
    let enabled: Bool
    private var held: HTTPResponse?

    init(enabled: Bool) { self.enabled = enabled }

    /// Holds `response` when the request announced no body; whether it did.
    mutating func hold(_ response: HTTPResponse, framing: FramingCheck.Framing) -> Bool {
        guard enabled, framing == .none else { return false }
        held = response
        return true
    }

    /// The held answer, once: on the last call.
    mutating func takeHeld() -> HTTPResponse? {
        defer { held = nil }
        return held
    }
}
