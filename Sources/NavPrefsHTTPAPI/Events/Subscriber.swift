import MicroHTTPServer
import NavPrefsCore
import Synchronization

/// Monotonic nanoseconds since the process' first use of it: cheap to store in an atomic.
enum StreamClock {
    private static let epoch = ContinuousClock.now

    static func now() -> Int64 {
        let elapsed = (ContinuousClock.now - epoch).components
        return elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000
    }
}

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
    /// An admin's filter by author (``AuthorFilter``), when the stream asked for one.
    let authors: AuthorFilter?
    let registeredAt = ContinuousClock.now
    private let state = Mutex(State())
    /// When its stream was last written to (``StreamClock`` nanoseconds), read without the lock
    /// by the heartbeat round: a stream that carried anything within the interval needs no
    /// heartbeat.
    private let lastWrite: Atomic<Int64>

    /// - Parameter quietSince: when the stream counts as last written to; the hub backdates it
    ///   by up to one heartbeat interval, so that streams opened together do not all fall due in
    ///   the same round.
    init(id: Int, profile: ProfileName, limitKey: String, issuer: String?, filter: EventFilter, authors: AuthorFilter? = nil,
         quietSince: Int64 = StreamClock.now()) {
        self.id = id
        self.profile = profile
        self.limitKey = limitKey
        self.issuer = issuer
        self.filter = filter
        self.authors = authors
        lastWrite = Atomic(quietSince)
    }

    /// Takes live events (in commit order, possibly ones it knows already) with their frames,
    /// which are built once for every subscriber. Answers how many it wrote to its stream.
    @discardableResult
    func deliver(_ events: [(event: LoggedEvent, frame: [UInt8])], at now: Int64) -> Int {
        let written = state.withLock { state -> Int in
            switch state.phase {
            case .starting(var pending):
                pending.append(contentsOf: events.map(\.event))
                state.phase = .starting(pending: pending)
                return 0
            case .live(let stream):
                var written = 0
                for (event, frame) in events where event.id > state.lastID {
                    state.lastID = event.id
                    guard wants(event) else { continue }
                    if !stream.write(frame, tag: event.id) { state.phase = .closed; return written }
                    written += 1
                }
                return written
            case .closed:
                return 0
            }
        }
        if written > 0 { lastWrite.store(now, ordering: .relaxed) }
        return written
    }

    /// Whether its stream carries `event`: of a type it asked for, by an author it asked for.
    func wants(_ event: LoggedEvent) -> Bool {
        filter.admits(event.type) && authors?.admits(event) ?? true
    }

    /// Goes live on `stream`: writes `opening` (retry hint, reset or position, replayed events
    /// up to `lastID`), then the live events that arrived meanwhile and are newer. Answers how
    /// many of those it wrote.
    @discardableResult
    func attach(_ stream: ResponseStream, opening: [UInt8], lastID: Int64) -> Int {
        let profile = self.profile
        stream.onOverflow { lastTag in Self.overflowReset(profile: profile, after: lastTag) }
        return state.withLock { state in
            guard case .starting(let pending) = state.phase else { return 0 }
            state.lastID = lastID
            guard stream.write(opening, tag: lastID) else { state.phase = .closed; return 0 }
            state.phase = .live(stream: stream)
            var written = 0
            for event in pending where event.id > state.lastID {
                state.lastID = event.id
                guard wants(event) else { continue }
                if !stream.write(SSEFrame.event(event), tag: event.id) { state.phase = .closed; return written }
                written += 1
            }
            return written
        }
    }

    /// What stands for the events a stream gave up when they would not fit its buffer, or the
    /// server's total for all streams (E-3): a `reset` whose id is the newest event given up, so
    /// the client reads the state again and goes on after it, on the same stream.
    static func overflowReset(profile: ProfileName, after id: Int64) -> [UInt8] {
        var data = JSONObjectBuilder()
        data.add("profile", profile.rawValue)
        data.add("reason", ReplayPlan.ResetReason.tooFarBehind.rawValue)
        data.add("latest", id)
        data.add("action", "refetch the profile's state; events continue after this one")
        return SSEFrame.control(.reset, data: data.json, id: id)
    }

    /// Writes a heartbeat comment if nothing was written for `idle` nanoseconds; `false` once
    /// the stream is gone, or if it never started (its request failed or its client left
    /// before the answer was queued). A busy stream is left alone: its next event notices a
    /// client that went away.
    /// Whether nothing was written for `idle` nanoseconds (a heartbeat is due).
    func isQuiet(at now: Int64, for idle: Int64) -> Bool {
        now - lastWrite.load(ordering: .relaxed) >= idle
    }

    func heartbeat(_ frame: [UInt8], at now: Int64, ifQuietFor idle: Int64) -> Bool {
        guard now - lastWrite.load(ordering: .relaxed) >= idle else { return true }
        return state.withLock { state in
            switch state.phase {
            case .live(let stream):
                lastWrite.store(now, ordering: .relaxed)
                return stream.write(frame)
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
