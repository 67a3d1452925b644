import MicroHTTPServer
import NavPrefsCore
import Synchronization

/// One SSE stream of a profile's events.
///
/// It starts by buffering live events while its replay is read from the log, then writes the
/// replay and the buffered events newer than it, in order, and goes live: nothing is missed
/// between the log and the live feed, and nothing is sent twice (E-2).
final class Subscriber: Sendable {
    enum Phase {
        /// Registered, replay being read; live events wait here.
        case starting(pending: [LoggedEvent])
        /// Streaming; `stream` gets each admitted event with an id above `lastID`.
        case live(stream: ResponseStream)
        case closed
    }

    struct State: ~Copyable {
        var phase = Phase.starting(pending: [])
        /// The newest id written (or skipped as already known).
        var lastID: Int64 = 0
    }

    let id: Int
    let profile: ProfileName
    /// What its stream counts against: its token (`token:<id>`) or its client's address.
    let limitKey: String
    /// The access token that vouched for the stream, directly or by a stream token it issued.
    let issuer: String?
    let filter: EventFilter
    let registeredAt = ContinuousClock.now
    private let state = Mutex(State())

    init(id: Int, profile: ProfileName, limitKey: String, issuer: String?, filter: EventFilter) {
        self.id = id
        self.profile = profile
        self.limitKey = limitKey
        self.issuer = issuer
        self.filter = filter
    }

    /// Takes live events (in commit order, possibly ones it knows already) with their frames,
    /// which are built once for every subscriber. Answers how many it wrote to its stream.
    @discardableResult
    func deliver(_ events: [(event: LoggedEvent, frame: [UInt8])]) -> Int {
        state.withLock { state in
            switch state.phase {
            case .starting(var pending):
                pending.append(contentsOf: events.map(\.event))
                state.phase = .starting(pending: pending)
                return 0
            case .live(let stream):
                var written = 0
                for (event, frame) in events where event.id > state.lastID {
                    state.lastID = event.id
                    guard filter.admits(event.type) else { continue }
                    if !stream.write(frame) { state.phase = .closed; return written }
                    written += 1
                }
                return written
            case .closed:
                return 0
            }
        }
    }

    /// Goes live on `stream`: writes `opening` (retry hint, reset or position, replayed events
    /// up to `lastID`), then the live events that arrived meanwhile and are newer. Answers how
    /// many of those it wrote.
    @discardableResult
    func attach(_ stream: ResponseStream, opening: [UInt8], lastID: Int64) -> Int {
        state.withLock { state in
            guard case .starting(let pending) = state.phase else { return 0 }
            state.lastID = lastID
            guard stream.write(opening) else { state.phase = .closed; return 0 }
            state.phase = .live(stream: stream)
            var written = 0
            for event in pending where event.id > state.lastID {
                state.lastID = event.id
                guard filter.admits(event.type) else { continue }
                if !stream.write(SSEFrame.event(event)) { state.phase = .closed; return written }
                written += 1
            }
            return written
        }
    }

    /// Writes a heartbeat comment; `false` once the stream is gone, or if it never started
    /// (its request failed or its client left before the answer was queued).
    func heartbeat(_ frame: [UInt8]) -> Bool {
        state.withLock { state in
            switch state.phase {
            case .live(let stream): return stream.write(frame)
            case .starting: return ContinuousClock.now - registeredAt < .seconds(60)
            case .closed: return false
            }
        }
    }

    /// Ends the stream after `frame` (shutdown); the client reconnects with its last event id.
    func close(after frame: [UInt8]?) {
        state.withLock { state in
            if case .live(let stream) = state.phase {
                if let frame { stream.write(frame) }
                stream.finish()
            }
            state.phase = .closed
        }
    }
}
