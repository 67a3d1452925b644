import Synchronization

/// The writing end of a streamed response body (see ``HTTPBody/stream(start:)``).
///
/// Safe to use from any thread. Bytes are queued and sent as the client reads them; while
/// nothing is queued the connection is suspended, so an idle stream uses no CPU and no thread.
/// The server notices a client that leaves an idle stream (see `SuspendedHangUps.swift`).
///
/// What a stream holds unsent is bounded twice: by its own bound and by the total of every
/// stream's (``StreamBudget``). A write that would pass either does not end the stream when its
/// producer said what stands for the frames it gives up (``onOverflow(_:)``, an event stream's
/// `reset`): the frames queued and not yet started are dropped, with the new one, and that
/// replacement is queued instead. The stream goes on, and a fast reader that meets one frame
/// larger than its bound gets the replacement, not the end. A stream still full at its next
/// overflow, with nothing read since its last replacement, is ended as too slow.
public final class ResponseStream: Sendable {
    /// Why a stream ended.
    public enum Termination: Sendable, Equatable {
        /// ``finish()`` was called and everything queued was handed to the socket.
        case finished
        /// The client closed the connection, or it failed.
        case disconnected
        /// The client read too slowly: its bound was reached again with nothing read since the
        /// last replacement (or with no replacement given).
        case tooSlow
        /// The server shut down.
        case serverShutdown
    }

    struct State: ~Copyable {
        /// The frames queued, each as written: a frame written to many streams (an event to
        /// every subscriber of a profile) is one array they all share, never copied per stream.
        var frames: [[UInt8]] = []
        /// The first frame not yet taken whole by the reader, and how much of it it took: a
        /// frame it started must be sent whole, the ones after it may be given up.
        var head = 0
        var offset = 0
        /// Bytes queued and not yet taken.
        var unsent = 0
        /// The tag of the newest frame written (sent, queued or given up): what a replacement
        /// says the stream has covered.
        var lastTag: Int64 = 0
        /// Whether the reader took bytes since the last replacement.
        var readSinceReplacement = true
        var replacement: (@Sendable (Int64) -> [UInt8])?
        var finishing = false
        /// The client finished sending: the end is its leaving, not ``finish()``.
        var clientLeft = false
        var aborted: Termination?
        var terminated = false
        var suspended = false
        var onTermination: [@Sendable (Termination) -> Void] = []
    }

    let state = Mutex(State())
    /// What the stream suspends while it has nothing to send and resumes on a write: a
    /// libmicrohttpd connection, or the reader of the in-memory transport.
    let connection: any StreamConnection
    let maxBufferedBytes: Int
    /// The total of every stream of the server, if it keeps one.
    let budget: StreamBudget?
    /// Identifies the stream in the server's registry.
    let id: Int
    /// Asks the event loop to cut the connection of a stream aborted while it was not suspended:
    /// libmicrohttpd then waits for the socket to take more bytes (a client that stopped
    /// reading never lets it) and would not call the reader to learn of the abort.
    private let requestCut: @Sendable (Int) -> Void

    package init(connection: any StreamConnection, maxBufferedBytes: Int, budget: StreamBudget? = nil, id: Int,
         requestCut: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.connection = connection
        self.maxBufferedBytes = maxBufferedBytes
        self.budget = budget
        self.id = id
        self.requestCut = requestCut
        budget?.register(self)
    }

    /// Queues `bytes` for sending, one whole frame of the stream's protocol (an event), tagged
    /// `tag` when it has one (an event id; see ``onOverflow(_:)``). Returns `false` if the
    /// stream has ended (or just ended because the client is too slow), so producers can drop it.
    @discardableResult
    public func write(_ bytes: [UInt8], tag: Int64? = nil) -> Bool {
        if let budget, budget.held > budget.limit - bytes.count { budget.reclaim(for: bytes.count) }
        var cut = false
        let accepted: Bool = state.withLock { state in
            guard !state.terminated, !state.finishing, state.aborted == nil else { return false }
            if let tag { state.lastTag = tag }
            guard state.unsent + bytes.count <= maxBufferedBytes else {
                return overflow(&state, cut: &cut)
            }
            if state.suspended, state.unsent == 0, !bytes.isEmpty {
                switch connection.sendWhileSuspended(bytes) {
                case .sent:
                    return true
                case .failed:
                    state.aborted = .disconnected
                    wake(&state)  // the reader answers "abort" and libmicrohttpd closes the connection
                    return false
                case .notSent:
                    break
                }
            }
            guard budget?.reserve(bytes.count) ?? true else { return overflow(&state, cut: &cut) }
            if !bytes.isEmpty {
                state.frames.append(bytes)
                state.unsent += bytes.count
            }
            wake(&state)
            return true
        }
        if cut { requestCut(id) }
        return accepted
    }

    @discardableResult
    public func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// What stands for frames the stream gives up (see the type's documentation): made from the
    /// tag of the newest frame written, on whichever thread writes, with the stream's lock held:
    /// it must not lock anything itself.
    public func onOverflow(_ makeReplacement: @escaping @Sendable (_ lastTag: Int64) -> [UInt8]) {
        state.withLock { $0.replacement = makeReplacement }
    }

    /// The frames queued and not started are given up for the replacement; without one, or
    /// with nothing read since the last, the stream ends as too slow. Answers whether it goes on.
    private func overflow(_ state: inout State, cut: inout Bool) -> Bool {
        guard let replacement = state.replacement, state.readSinceReplacement else {
            state.aborted = .tooSlow
            dropPending(&state)
            budget?.cut.add(1, ordering: .relaxed)
            cut = !wake(&state)
            return false
        }
        replaceUnsent(&state, with: replacement(state.lastTag))
        return true
    }

    /// Drops the frames not started and queues `replacement` (counted in the budget even past
    /// it: it is small, and stands for what was dropped).
    private func replaceUnsent(_ state: inout State, with replacement: [UInt8]) {
        let keep = state.offset > 0 ? state.head + 1 : state.head
        let kept = keep > state.head ? state.frames[state.head].count - state.offset : 0
        budget?.release(state.unsent - kept)
        state.frames.removeSubrange(min(keep, state.frames.count)...)
        state.frames.append(replacement)
        state.unsent = kept + replacement.count
        budget?.heldBytes.add(replacement.count, ordering: .relaxed)
        budget?.replaced.add(1, ordering: .relaxed)
        state.readSinceReplacement = false
        wake(&state)
    }

    /// Bytes queued and not yet taken by the reader.
    var unsentBytes: Int { state.withLock { $0.unsent } }

    /// Whether the reader would get bytes now (not the stream's end or its abort).
    var hasBytesToSend: Bool { state.withLock { $0.aborted == nil && $0.unsent > 0 } }

    /// Gives up the unsent frames for the replacement (the total is short; ``StreamBudget``).
    func giveUpUnsent() {
        var cut = false
        state.withLock { state in
            guard !state.terminated, state.aborted == nil, state.unsent > 0 else { return }
            _ = overflow(&state, cut: &cut)
        }
        if cut { requestCut(id) }
    }

    /// Ends the stream once everything queued so far has been sent.
    public func finish() {
        state.withLock { state in
            guard !state.terminated, !state.finishing else { return }
            state.finishing = true
            wake(&state)
        }
    }

    /// The client finished sending (it closed, or shut down its side; a stream's client never
    /// sends again): the stream ends after what is queued, as one whose client left.
    func clientFinishedSending() {
        state.withLock { state in
            guard !state.terminated, !state.finishing, state.aborted == nil else { return }
            state.finishing = true
            state.clientLeft = true
            wake(&state)
        }
    }

    /// Whether the stream has ended or is ending; writes are then refused.
    public var isClosed: Bool {
        state.withLock { $0.terminated || $0.finishing || $0.aborted != nil }
    }

    /// Registers `handler` to run once when the stream ends, on whichever thread ends it.
    /// Runs at once if the stream has already ended.
    public func onTermination(_ handler: @escaping @Sendable (Termination) -> Void) {
        let endedAlready: Termination? = state.withLock { state in
            if state.terminated { return state.aborted ?? .finished }
            state.onTermination.append(handler)
            return nil
        }
        if let endedAlready { handler(endedAlready) }
    }

    /// Resumes the connection if the reader suspended it; called with the lock held, so that a
    /// resume can never overtake the suspend it undoes. Answers whether it did.
    @discardableResult
    private func wake(_ state: inout State) -> Bool {
        guard state.suspended else { return false }
        state.suspended = false
        connection.resume()
        return true
    }

    private func dropPending(_ state: inout State) {
        budget?.release(state.unsent)
        state.frames = []
        state.head = 0
        state.offset = 0
        state.unsent = 0
    }

    // MARK: - Event-loop side (called by libmicrohttpd's content reader, or the in-memory reader)

    /// What the content reader should do next.
    package enum ReadResult {
        case bytes(Int)
        case suspended
        case endOfStream
        case abort
    }

    /// Copies queued bytes into `buffer`, or suspends the connection when there are none.
    package func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        state.withLock { state in
            if state.aborted != nil { return .abort }
            if state.unsent > 0 {
                var count = 0
                while count < buffer.count, state.head < state.frames.count {
                    let taken = state.frames[state.head].withUnsafeBytes { frame in
                        let taken = min(frame.count - state.offset, buffer.count - count)
                        UnsafeMutableRawBufferPointer(rebasing: buffer[count..<count + taken])
                            .copyMemory(from: UnsafeRawBufferPointer(rebasing: frame[state.offset..<state.offset + taken]))
                        return taken
                    }
                    count += taken
                    state.offset += taken
                    if state.offset == state.frames[state.head].count {
                        state.head += 1
                        state.offset = 0
                    }
                }
                state.unsent -= count
                state.readSinceReplacement = true
                budget?.release(count)
                if state.head == state.frames.count {
                    state.frames.removeAll(keepingCapacity: state.frames.capacity <= 16)
                    state.head = 0
                } else if state.head >= 64 {
                    state.frames.removeFirst(state.head)
                    state.head = 0
                }
                return .bytes(count)
            }
            if state.finishing { return .endOfStream }
            state.suspended = true
            connection.suspend()
            return .suspended
        }
    }

    /// Marks the stream for abortion by the server (shutdown) and wakes it.
    package func abort(_ reason: Termination) {
        let cut = state.withLock { state -> Bool in
            guard !state.terminated, state.aborted == nil else { return false }
            state.aborted = reason
            return !wake(&state)
        }
        if cut { requestCut(id) }
    }

    /// Called once libmicrohttpd has released the response: the stream is over for good.
    package func terminated() {
        let (handlers, reason): ([@Sendable (Termination) -> Void], Termination) = state.withLock { state in
            state.terminated = true
            let reason = state.aborted
                ?? (state.finishing && !state.clientLeft && state.unsent == 0 ? .finished : .disconnected)
            state.aborted = reason
            let handlers = state.onTermination
            state.onTermination = []
            state.replacement = nil
            dropPending(&state)
            return (handlers, reason)
        }
        budget?.unregister(self)
        for handler in handlers { handler(reason) }
    }
}

/// What a ``ResponseStream`` suspends while nothing is queued and resumes when something is:
/// a libmicrohttpd connection (``ConnectionHandle``), or the reader of an
/// `InMemoryHTTPTransport` stream. `suspend` is called by the reader, `resume` from any
/// thread, each under the stream's lock and paired with one earlier `suspend`.
package protocol StreamConnection: Sendable {
    func suspend()
    func resume()
    /// Sends `bytes` as the stream's next piece of body straight to the client, while the
    /// connection is suspended and nothing is queued (see ``SuspendedStreamSocket``).
    func sendWhileSuspended(_ bytes: [UInt8]) -> DirectSend
}

extension StreamConnection {
    package func sendWhileSuspended(_ bytes: [UInt8]) -> DirectSend { .notSent }
}

/// What became of a direct send (``StreamConnection/sendWhileSuspended(_:)``).
package enum DirectSend {
    /// All of it is on its way: the connection stays suspended, the event loop never woke.
    case sent
    /// None of it went (the socket's buffer is full, or this connection cannot send directly):
    /// queue it, and resume the connection, as without direct sends.
    case notSent
    /// The client left, or only part went out (the body's framing is broken): end the stream.
    case failed
}
