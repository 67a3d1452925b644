import Synchronization

/// The writing end of a streamed response body (see ``HTTPBody/stream(start:)``).
///
/// Safe to use from any thread. Bytes are queued and sent as the client reads them; while
/// nothing is queued the connection is suspended, so an idle stream uses no CPU and no thread.
/// libmicrohttpd does not notice a client that went away while its connection was suspended:
/// write something periodically (a heartbeat) to find out.
public final class ResponseStream: Sendable {
    /// Why a stream ended.
    public enum Termination: Sendable, Equatable {
        /// ``finish()`` was called and everything queued was handed to the socket.
        case finished
        /// The client closed the connection, or it failed.
        case disconnected
        /// The client read too slowly: more than the configured bytes were queued unsent.
        case tooSlow
        /// The server shut down.
        case serverShutdown
    }

    struct State: ~Copyable {
        var pending: [UInt8] = []
        var readOffset = 0
        var finishing = false
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
    /// Identifies the stream in the server's registry.
    let id: Int
    /// Asks the event loop to cut the connection of a stream aborted while it was not suspended:
    /// libmicrohttpd then waits for the socket to take more bytes (a client that stopped
    /// reading never lets it) and would not call the reader to learn of the abort.
    private let requestCut: @Sendable (Int) -> Void

    init(connection: any StreamConnection, maxBufferedBytes: Int, id: Int, requestCut: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.connection = connection
        self.maxBufferedBytes = maxBufferedBytes
        self.id = id
        self.requestCut = requestCut
    }

    /// Queues `bytes` for sending. Returns `false` if the stream has ended (or just ended
    /// because the client is too slow), so producers can drop it.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        var cut = false
        let accepted: Bool = state.withLock { state in
            guard !state.terminated, !state.finishing, state.aborted == nil else { return false }
            if state.pending.count - state.readOffset + bytes.count > maxBufferedBytes {
                state.aborted = .tooSlow
                state.pending = []
                state.readOffset = 0
                cut = !wake(&state)
                return false
            }
            if state.suspended, state.pending.count == state.readOffset, !bytes.isEmpty {
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
            state.pending.append(contentsOf: bytes)
            wake(&state)
            return true
        }
        if cut { requestCut(id) }
        return accepted
    }

    @discardableResult
    public func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Ends the stream once everything queued so far has been sent.
    public func finish() {
        state.withLock { state in
            guard !state.terminated, !state.finishing else { return }
            state.finishing = true
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

    // MARK: - Event-loop side (called by libmicrohttpd's content reader, or the in-memory reader)

    /// What the content reader should do next.
    enum ReadResult {
        case bytes(Int)
        case suspended
        case endOfStream
        case abort
    }

    /// Copies queued bytes into `buffer`, or suspends the connection when there are none.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        state.withLock { state in
            if state.aborted != nil { return .abort }
            let available = state.pending.count - state.readOffset
            if available > 0 {
                let count = min(available, buffer.count)
                state.pending.withUnsafeBytes { source in
                    buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[state.readOffset..<state.readOffset + count]))
                }
                state.readOffset += count
                if state.readOffset == state.pending.count {
                    state.pending.removeAll(keepingCapacity: state.pending.capacity <= 4096)
                    state.readOffset = 0
                } else if state.readOffset > 65_536 {
                    state.pending.removeFirst(state.readOffset)
                    state.readOffset = 0
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
    func abort(_ reason: Termination) {
        let cut = state.withLock { state -> Bool in
            guard !state.terminated, state.aborted == nil else { return false }
            state.aborted = reason
            return !wake(&state)
        }
        if cut { requestCut(id) }
    }

    /// Called once libmicrohttpd has released the response: the stream is over for good.
    func terminated() {
        let (handlers, reason): ([@Sendable (Termination) -> Void], Termination) = state.withLock { state in
            state.terminated = true
            let reason = state.aborted ?? (state.finishing && state.readOffset == state.pending.count ? .finished : .disconnected)
            state.aborted = reason
            let handlers = state.onTermination
            state.onTermination = []
            state.pending = []
            state.readOffset = 0
            return (handlers, reason)
        }
        for handler in handlers { handler(reason) }
    }
}

/// What a ``ResponseStream`` suspends while nothing is queued and resumes when something is:
/// a libmicrohttpd connection (``ConnectionHandle``), or the reader of an
/// ``InMemoryHTTPTransport`` stream. `suspend` is called by the reader, `resume` from any
/// thread, each under the stream's lock and paired with one earlier `suspend`.
protocol StreamConnection: Sendable {
    func suspend()
    func resume()
    /// Sends `bytes` as the stream's next piece of body straight to the client, while the
    /// connection is suspended and nothing is queued (see ``SuspendedStreamSocket``).
    func sendWhileSuspended(_ bytes: [UInt8]) -> DirectSend
}

extension StreamConnection {
    func sendWhileSuspended(_ bytes: [UInt8]) -> DirectSend { .notSent }
}

/// What became of a direct send (``StreamConnection/sendWhileSuspended(_:)``).
enum DirectSend {
    /// All of it is on its way: the connection stays suspended, the event loop never woke.
    case sent
    /// None of it went (the socket's buffer is full, or this connection cannot send directly):
    /// queue it, and resume the connection, as without direct sends.
    case notSent
    /// The client left, or only part went out (the body's framing is broken): end the stream.
    case failed
}
