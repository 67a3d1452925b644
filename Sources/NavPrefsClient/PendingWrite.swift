import Foundation

/// A write the library has accepted: already in the mirror (getters answer it) and in the
/// durable outbox, sent in order whenever the server can be reached, across relaunches. Ignore
/// it as `UserDefaults.set`'s caller does, or await ``confirmed()`` for the server's answer.
public struct PendingWrite: Sendable {
    /// The write's `Idempotency-Key`: the server applies it once however often it is sent.
    public let idempotencyKey: String
    let promise: Promise<JSON>

    init(idempotencyKey: String, promise: Promise<JSON>) {
        self.idempotencyKey = idempotencyKey
        self.promise = promise
    }

    /// A write refused before it was queued (a value `UserDefaults` cannot hold); nothing changed.
    init(refused error: NavPrefsError) {
        idempotencyKey = ""
        promise = Promise(.failure(error))
    }

    /// The server's answer (its JSON body), once the write was sent and accepted. Waits as long
    /// as the server cannot be reached (and the profile is not started: writes are sent while it
    /// is); cancelling the waiting task leaves the write queued.
    /// - Throws: ``NavPrefsError/preconditionFailed(currentVersion:problem:)`` when a
    ///   ``WritePolicy/basedOnWhatISaw`` write was overtaken (the mirror then holds the server's
    ///   value); ``NavPrefsError/refused(_:)`` when the server refused it for good (4xx);
    ///   ``NavPrefsError/invalidArgument(_:)`` for a value that was never queued;
    ///   ``NavPrefsError/cancelled``.
    @discardableResult
    public func confirmed() async throws(NavPrefsError) -> JSON { try await promise.value() }
}
