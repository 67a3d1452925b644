/// Where a new subscription starts, given what the client has seen and what the log still holds
/// (semantics E-2, E-3; design.md "Events").
public enum ReplayPlan: Sendable, Hashable {
    /// No position given: start after the newest event (events from now on).
    case fromNow(after: Int64)
    /// Replay every logged event after `id`, then go on live: no gap, no duplicate.
    case replay(after: Int64)
    /// The position cannot be continued: tell the client to fetch the state again, then go on
    /// live after `resumeAfter` (the newest event). Never a silent skip.
    case reset(reason: ResetReason, resumeAfter: Int64)

    public enum ResetReason: String, Sendable, Hashable {
        /// The client's id is older than the oldest event the log still keeps.
        case expired
        /// The id is not one this profile has issued (malformed, or newer than its newest event).
        case unknown
        /// The events to replay are more than a stream may queue at once (decided by the server).
        case tooFarBehind
    }

    /// Decides from the client's `Last-Event-ID` (`nil`: none sent; a text that is not a
    /// non-negative integer is unknown) and the log's bounds: `earliest` is the oldest id still
    /// kept (`latest + 1` when none is kept), `latest` the newest id issued (0: none yet).
    public static func plan(lastEventID: String?, earliest: Int64, latest: Int64) -> ReplayPlan {
        guard let text = lastEventID else { return .fromNow(after: latest) }
        guard let seen = Int64(text), seen >= 0, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return .reset(reason: .unknown, resumeAfter: latest) }
        guard seen <= latest else { return .reset(reason: .unknown, resumeAfter: latest) }
        // Continuity needs every event after `seen`: the first one is `seen + 1`.
        guard seen + 1 >= earliest || seen == latest else { return .reset(reason: .expired, resumeAfter: latest) }
        return .replay(after: seen)
    }
}
