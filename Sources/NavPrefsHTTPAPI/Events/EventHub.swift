import Dispatch
import Foundation
import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore
import Synchronization

/// NotificationCenter over the network: the subscribers of every profile, fed by the store's
/// event feed (in commit order), kept alive by heartbeats.
///
/// The hub takes events from its own subscription to the feed, on a delivery thread of its own:
/// the store's writer only queues them there (N-1: enqueued before the write is acknowledged)
/// and never runs stream code. ``start()`` starts the delivery and heartbeat threads, ``stop()``
/// ends them.
final class EventHub: Sendable {
    struct Limits: Sendable {
        var maxSubscribers: Int
        var maxSubscribersPerAddress: Int
        var heartbeat: Duration
        var retry: Duration
        /// A replay larger than this is replaced by a `reset` (the client is too far behind).
        var maxReplayBytes: Int = 512 << 10
    }

    private struct Registry: ~Copyable {
        var byProfile: [ProfileName: [Int: Subscriber]] = [:]
        /// Streams per limit key: per token when one vouched for them, else per client address
        /// (behind a trusted proxy, the address it forwarded), so a proxy's users do not share one budget.
        var perKey: [String: Int] = [:]
        var count = 0
        var nextID = 0
        var closed = false
    }

    let limits: Limits
    private let registry = Mutex(Registry())
    /// The registry's count, readable without its lock by the store's writer at each publish.
    private let openStreams = Atomic<Int>(0)
    private let feed: EventFeed
    /// The hub's queue of the feed's events, while delivering.
    private let subscription = Mutex<FeedSubscription?>(nil)
    /// Signalled to stop the heartbeat thread, which otherwise waits on it for one interval.
    private let stopHeartbeats = DispatchSemaphore(value: 0)
    /// Signalled by each thread as it exits.
    private let threadsExited = DispatchSemaphore(value: 0)

    init(feed: EventFeed, limits: Limits) {
        self.feed = feed
        self.limits = limits
    }

    /// Subscribes to the feed and starts the delivery and heartbeat threads. The delivery
    /// thread is woken only while a stream is open: a subscriber registers before it reads the
    /// log for its replay (``register(profile:client:issuer:filter:)``), so what the feed drops
    /// before then, that read finds.
    func start() {
        let subscription = feed.subscribe(wanted: { [weak self] in (self?.openStreams.load(ordering: .acquiring) ?? 0) > 0 })
        let started = self.subscription.withLock { current in
            guard current == nil else { return false }
            current = subscription
            return true
        }
        guard started else { return subscription.cancel() }
        let exited = threadsExited
        startWorkerThread(name: "sse-delivery", exited: exited) { [self] in
            while let events = subscription.next() { deliver(events) }
        }
        let tick = heartbeatTick.dispatchInterval
        let stop = stopHeartbeats
        startWorkerThread(name: "sse-heartbeat", exited: exited) { [self] in
            while stop.wait(timeout: .now() + tick) == .timedOut { sendHeartbeats() }
        }
    }

    /// Stops delivering and sending heartbeats; returns once both threads have exited.
    func stop() {
        guard let subscription = subscription.withLock({ current in defer { current = nil }; return current }) else { return }
        subscription.cancel()
        stopHeartbeats.signal()
        threadsExited.wait()
        threadsExited.wait()
    }

    var subscriberCount: Int { registry.withLock { $0.count } }

    /// Events written to streams so far, replayed and live (`navprefs_sse_events_sent_total`).
    var eventsSent: Int { sent.load(ordering: .relaxed) }
    private let sent = Atomic<Int>(0)

    /// Counts events a stream was sent outside ``deliver(_:)`` (its replay, when it starts).
    func countSent(_ count: Int) { if count > 0 { sent.add(count, ordering: .relaxed) } }

    /// Registers a subscriber, which buffers live events until ``Subscriber/attach(_:opening:lastID:)``.
    /// - Parameters:
    ///   - issuer: the access token that vouched for the stream (its streams count together);
    ///     `nil` when none was needed, then `client` (the client's address) counts them.
    /// - Throws: 503 when the server holds its maximum of streams, 429 when the token or address does.
    func register(profile: ProfileName, client: String, issuer: String?, filter: EventFilter,
                  authors: AuthorFilter? = nil) throws(APIError) -> Subscriber {
        let limitKey = issuer.map { "token:" + $0 } ?? client
        let holder = issuer.map { "The token \($0)" } ?? client
        let outcome: Result<Subscriber, APIError> = registry.withLock { registry in
            if registry.closed {
                return .failure(APIError(.shuttingDown, "The server is shutting down; reconnect to another instance.",
                                         headers: [(HeaderName.retryAfter, "1")]))
            }
            guard registry.count < limits.maxSubscribers else {
                return .failure(APIError(.tooManySubscribers, "The server holds its maximum of \(limits.maxSubscribers) event streams.",
                                         headers: [(HeaderName.retryAfter, "5")]))
            }
            guard registry.perKey[limitKey, default: 0] < limits.maxSubscribersPerAddress else {
                return .failure(APIError(.tooManyStreamsFromClient,
                                         "\(holder) already holds \(limits.maxSubscribersPerAddress) event streams; close one first.",
                                         headers: [(HeaderName.retryAfter, "5")]))
            }
            registry.nextID += 1
            let subscriber = Subscriber(id: registry.nextID, profile: profile, limitKey: limitKey, issuer: issuer, filter: filter,
                                        authors: authors, quietSince: quietSince(ofNew: registry.nextID))
            registry.byProfile[profile, default: [:]][subscriber.id] = subscriber
            registry.perKey[limitKey, default: 0] += 1
            registry.count += 1
            openStreams.store(registry.count, ordering: .releasing)
            return .success(subscriber)
        }
        return try outcome.get()
    }

    func remove(_ subscriber: Subscriber) {
        registry.withLock { registry in
            guard registry.byProfile[subscriber.profile]?.removeValue(forKey: subscriber.id) != nil else { return }
            if registry.byProfile[subscriber.profile]?.isEmpty == true { registry.byProfile[subscriber.profile] = nil }
            registry.perKey[subscriber.limitKey, default: 1] -= 1
            if registry.perKey[subscriber.limitKey] == 0 { registry.perKey[subscriber.limitKey] = nil }
            registry.count -= 1
            openStreams.store(registry.count, ordering: .releasing)
        }
    }

    /// Hands each profile's events to its subscribers (on the delivery thread, in commit order).
    private func deliver(_ events: [LoggedEvent]) {
        var byProfile: [ProfileName: [(event: LoggedEvent, frame: [UInt8])]] = [:]
        for event in events { byProfile[event.profile, default: []].append((event, SSEFrame.event(event))) }
        let now = StreamClock.now()
        for (profile, framed) in byProfile {
            let subscribers = registry.withLock { $0.byProfile[profile].map { Array($0.values) } ?? [] }
            var written = 0
            for subscriber in subscribers { written += subscriber.deliver(framed, at: now) }
            countSent(written)
        }
    }

    // MARK: Heartbeats

    /// Rounds per heartbeat interval. Each round writes a comment to the streams that have been
    /// quiet for the interval less one round, so no stream stays silent longer than the
    /// interval (E-6), busy streams get none, and idle ones fall due in different rounds.
    static let heartbeatRounds = 16

    private var heartbeatTick: Duration { limits.heartbeat / Self.heartbeatRounds }

    /// A new stream counts as quiet since up to one interval ago, by its id: streams opened
    /// together (a deploy, a reconnect storm) then get their heartbeats spread over the
    /// interval instead of all in one round. Earlier, never later: E-6 holds from the start.
    private func quietSince(ofNew id: Int) -> Int64 {
        StreamClock.now() - Int64(id % Self.heartbeatRounds) * heartbeatTick.nanoseconds
    }

    /// A comment line to every stream quiet for the interval: keeps proxies from closing idle
    /// streams, and is how a client that vanished is noticed (a suspended connection sees
    /// nothing until a write fails).
    private func sendHeartbeats() {
        let frame = SSEFrame.comment("heartbeat")
        let now = StreamClock.now()
        let quiet = limits.heartbeat.nanoseconds - heartbeatTick.nanoseconds
        // Only the streams due, collected in plain loops: with 10,000 idle streams, a flatMap
        // over every profile's streams each round was the idle server's largest cost (perf:
        // 30 ms/s, most of it in the runtime's enum handling of the unspecialised iteration).
        let due: [Subscriber] = registry.withLock { registry in
            var due: [Subscriber] = []
            for streams in registry.byProfile.values {
                for subscriber in streams.values where subscriber.isQuiet(at: now, for: quiet) { due.append(subscriber) }
            }
            return due
        }
        for subscriber in due where !subscriber.heartbeat(frame, at: now, ifQuietFor: quiet) {
            remove(subscriber)
        }
    }

    /// The access tokens that vouched for open streams.
    var issuers: Set<String> {
        registry.withLock { Set($0.byProfile.values.flatMap { $0.values.compactMap(\.issuer) }) }
    }

    /// Ends the streams that `issuedBy` vouched for, with a final `revoked` event: the token
    /// was revoked, so the stream is too (a client must not reconnect with it).
    func endStreams(issuedBy id: String) {
        endStreams(Self.tokenRevoked) { $0 == id }
    }

    /// Ends the streams whose token is not among `existing` (revoked elsewhere).
    func endStreams(notIssuedByAnyOf existing: Set<String>) {
        endStreams(Self.tokenRevoked) { $0.map { !existing.contains($0) } ?? false }
    }

    /// Ends the streams admitted while no token was needed (no token, or a stream token of the
    /// open mode), with a final `revoked` event: a token exists now, so the open mode is over
    /// and the client must come back with one.
    func endStreamsOpenedWithoutToken() {
        endStreams("this stream was opened without a token, and the server needs one now (a token was created)") { $0 == nil }
    }

    private static let tokenRevoked = "the token this stream was opened with was revoked"

    /// Ends the streams whose issuer (`nil`: none) `matches`, each with a `revoked` event.
    private func endStreams(_ reason: String, where matches: (String?) -> Bool) {
        let ended = registry.withLock { registry in
            registry.byProfile.values.flatMap { $0.values.filter { matches($0.issuer) } }
        }
        guard !ended.isEmpty else { return }
        var data = JSONObjectBuilder()
        data.add("reason", reason)
        let frame = SSEFrame.control(.revoked, data: data.json)
        for subscriber in ended {
            subscriber.close(after: frame)
            remove(subscriber)
        }
    }

    /// Ends every stream with a `shutdown` event, so clients reconnect (with their last event id)
    /// to whichever instance comes next; refuses new subscribers from now on.
    func shutdown() {
        let all = registry.withLock { registry in
            registry.closed = true
            return registry.byProfile.values.flatMap { $0.values }
        }
        var data = JSONObjectBuilder()
        data.add("reason", "the server is shutting down; reconnect with your last event id")
        let frame = SSEFrame.retry(milliseconds: Int(limits.retry.milliseconds)) + SSEFrame.control(.shutdown, data: data.json)
        for subscriber in all { subscriber.close(after: frame) }
    }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
    var dispatchInterval: DispatchTimeInterval { .milliseconds(Int(clamping: max(1, milliseconds))) }
}
