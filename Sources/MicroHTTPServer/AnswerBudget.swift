import Glibc
import Synchronization

/// The large answers (bodies of ``ServerConfiguration/largeAnswerBytes`` or more) the server holds
/// at once, against ``ServerConfiguration/maxBufferedAnswerBytes``.
///
/// Why: an answer is made whole (the store reads a snapshot, the handler renders it) and then
/// held until its client has read it: 40 unread answers of a 29 MB profile took the server from
/// 1.2 to 2.4 GiB in issue 31. So a large body is moved, on the thread that made it, into a
/// buffer of its own that libmicrohttpd sends without copying (the copy would run on the event
/// loop), and that buffer counts against this budget until libmicrohttpd is done with it. An
/// answer that does not fit is replaced by 503 (``HTTPRejection/answerBufferFull``) with
/// `Retry-After`: the memory of answers has a ceiling, whatever the clients read.
public final class AnswerBudget: Sendable {
    /// Bodies of at least this many bytes are prepared this way.
    public let threshold: Int
    /// Bytes such bodies may hold together.
    public let limit: Int
    /// Bytes held now.
    public var held: Int { heldBytes.load(ordering: .relaxed) }
    /// Answers replaced by 503 because they did not fit.
    public var refused: Int { refusedCount.load(ordering: .relaxed) }

    private let heldBytes = Atomic<Int>(0)
    private let refusedCount = Atomic<Int>(0)

    public init(threshold: Int, limit: Int) {
        self.threshold = threshold
        self.limit = limit
    }

    /// On the thread that answers: a large body moved into a buffer of its own, or the answer
    /// marked for refusal when the budget has no room for it.
    func prepare(_ response: inout HTTPResponse) {
        guard case .bytes(let bytes) = response.body, bytes.count >= threshold, response.status != 304 else { return }
        guard reserve(bytes.count), let body = PreparedBody(copying: bytes, budget: self) else {
            refusedCount.add(1, ordering: .relaxed)
            response = HTTPResponse(status: 503)
            response.refusal = .answerBufferFull
            return
        }
        response.body = .bytes([])
        response.prepared = body
    }

    private func reserve(_ count: Int) -> Bool { heldBytes.add(count, within: limit) }

    fileprivate func release(_ count: Int) { heldBytes.subtract(count, ordering: .relaxed) }
}

/// A response body in memory of its own, handed to libmicrohttpd as is (no copy) and freed,
/// with its share of the budget, when libmicrohttpd is done with it (or when the answer is
/// dropped before it was queued).
final class PreparedBody: @unchecked Sendable {
    // Safety: the bytes are written once, in `init`, and only read afterwards.
    let base: UnsafeMutableRawPointer
    let count: Int
    private let budget: AnswerBudget

    init?(copying bytes: [UInt8], budget: AnswerBudget) {
        guard let base = malloc(max(1, bytes.count)) else {
            budget.release(bytes.count)
            return nil
        }
        bytes.withUnsafeBytes { base.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(base), byteCount: bytes.count) }
        self.base = base
        count = bytes.count
        self.budget = budget
    }

    var bytes: [UInt8] { Array(UnsafeRawBufferPointer(start: base, count: count)) }

    deinit {
        free(base)
        budget.release(count)
    }
}
