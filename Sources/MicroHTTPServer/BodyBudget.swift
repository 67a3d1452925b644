import Synchronization

/// The bytes all request bodies being received hold together, against
/// ``ServerConfiguration/maxBufferedBodyBytes``. A declared length is reserved whole when
/// admission lets the body come; a chunked body reserves as it arrives. Everything a request
/// holds is released when its body goes to the handler or the request ends otherwise.
///
/// An atomic only so that ``HTTPServer/bufferedBodyBytes`` can read it from any thread: the
/// socket server changes it on the event-loop thread alone (the in-memory transport under its
/// own lock), so a check and the add that follows it are never split by another request.
package final class BodyBudget: Sendable {
    let limit: Int
    let held = Atomic<Int>(0)
    /// Bytes held right now.
    package var heldBytes: Int { held.load(ordering: .relaxed) }

    package init(limit: Int) { self.limit = limit }

    /// Reserves `bytes` for a request that holds `holding` bytes already, unless that would
    /// exceed the limit.
    package func reserve(_ bytes: Int, holding: inout Int) -> Bool {
        guard bytes > 0 else { return true }
        let current = held.load(ordering: .relaxed)
        guard bytes <= limit - current else { return false }
        held.add(bytes, ordering: .relaxed)
        holding += bytes
        return true
    }

    /// Releases what a request holds.
    package func release(holding: inout Int) {
        guard holding > 0 else { return }
        held.subtract(holding, ordering: .relaxed)
        holding = 0
    }
}
