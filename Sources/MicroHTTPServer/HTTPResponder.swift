import Glibc
import Synchronization

/// The one-shot way a handler answers a request (``HTTPHandler/handle(_:responder:)``).
///
/// Call ``respond(_:)`` exactly once, from any thread: on the event loop while `handle` runs
/// (the answer then goes out as soon as `handle` returns, the connection never suspended), or
/// later from the thread that did the work (a store's writer, say), which hands the bytes to the
/// event loop and wakes it. That is the whole path of deferred work: no task, no queue of the
/// server's own. Calls after the first are ignored, and so is a call after the client left.
public struct HTTPResponder: Sendable {
    let shot: OneShot<HTTPResponse>
    /// When the request line arrived, for the latency an application logs.
    public let receivedAt: ContinuousClock.Instant
    let tally: AnswerTally?
    /// Where a large body is moved and counted, on this thread (``AnswerBudget``).
    let answers: AnswerBudget?

    package init(shot: OneShot<HTTPResponse>, receivedAt: ContinuousClock.Instant, tally: AnswerTally?, answers: AnswerBudget? = nil) {
        self.shot = shot
        self.receivedAt = receivedAt
        self.tally = tally
        self.answers = answers
    }

    /// Answers the request with `response`; `false` if it was answered already (or is gone).
    @discardableResult
    public func respond(_ response: consuming HTTPResponse) -> Bool {
        var response = response
        answers?.prepare(&response)
        // Counted before the answer can reach the client, so a client that saw it sees the count.
        let offLoop = tally?.answeredOffTheLoop() ?? false
        let accepted = shot.fulfil(response)
        if !accepted, offLoop { tally?.offLoop.subtract(1, ordering: .relaxed) }
        return accepted
    }
}
