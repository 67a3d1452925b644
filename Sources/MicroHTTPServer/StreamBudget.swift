import Synchronization

/// The bytes all streams of a server may hold unsent together (``ServerConfiguration/maxBufferedStreamBytesTotal``),
/// on top of each stream's own bound (``ServerConfiguration/maxBufferedStreamBytes``).
///
/// Why a total: each stream's bound alone lets a thousand clients that never read hold a
/// thousand times it (1,000 such streams took the server from 66 MB to 1.07 GiB in issue 31).
/// When a write would go past the total, the streams holding the most unsent bytes (the
/// slowest readers) give up what they queue first: each is replaced by its producer's
/// replacement (an event stream's `reset`, ``ResponseStream/onOverflow(_:)``) until the total
/// is back under three quarters of the budget, so that this happens now and then, not on
/// every write. Bytes a reader is taking (the frame in flight) cannot be given up, so the
/// total can pass the budget by those, at most one frame per stream.
public final class StreamBudget: Sendable {
    /// The total, in bytes; `Int.max`: none.
    public let limit: Int
    /// Each stream's own bound (``ServerConfiguration/maxBufferedStreamBytes``), for reports.
    public let perStreamLimit: Int
    /// The send buffer each stream's socket is given (``ServerConfiguration/streamSocketBufferBytes``;
    /// 0 where streams have no socket), for reports.
    public let socketBufferBytes: Int
    /// Unsent bytes all streams hold now.
    public var held: Int { heldBytes.load(ordering: .relaxed) }
    /// Streams whose unsent bytes were replaced by their producer's replacement: because the
    /// stream's own bound was reached, or the total's.
    public var replacements: Int { replaced.load(ordering: .relaxed) }
    /// Streams ended because they were too slow: still full after a replacement, with nothing
    /// read since, or with no replacement to give.
    public var cuts: Int { cut.load(ordering: .relaxed) }

    let heldBytes = Atomic<Int>(0)
    let replaced = Atomic<Int>(0)
    let cut = Atomic<Int>(0)
    private let streams = Mutex<[Int: ResponseStream]>([:])

    public init(limit: Int, perStreamLimit: Int, socketBufferBytes: Int = 0) {
        self.limit = limit
        self.perStreamLimit = perStreamLimit
        self.socketBufferBytes = socketBufferBytes
    }

    func register(_ stream: ResponseStream) { streams.withLock { $0[stream.id] = stream } }
    func unregister(_ stream: ResponseStream) { _ = streams.withLock { $0.removeValue(forKey: stream.id) } }

    /// Takes `count` bytes of the total, if they fit.
    func reserve(_ count: Int) -> Bool { heldBytes.add(count, within: limit) }

    func release(_ count: Int) {
        if count > 0 { heldBytes.subtract(count, ordering: .relaxed) }
    }

    /// Makes room for `count` more bytes: the streams holding the most unsent bytes give them
    /// up, slowest first, until the total is under three quarters of the budget (less `count`).
    /// Locks one stream at a time; the caller holds none.
    func reclaim(for count: Int) {
        let target = max(0, limit / 4 * 3 - count)
        guard held > target else { return }
        let candidates = streams.withLock { Array($0.values) }
            .map { (stream: $0, unsent: $0.unsentBytes) }
            .filter { $0.unsent > 0 }
            .sorted { $0.unsent > $1.unsent }
        for candidate in candidates {
            guard held > target else { return }
            candidate.stream.giveUpUnsent()
        }
    }
}
