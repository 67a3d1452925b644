import Foundation

/// How the library's event stream connects, notices a dead connection and reconnects.
public struct StreamOptions: Sendable {
    /// A connection that delivers nothing (no event, no heartbeat) for this long is taken for
    /// dead and replaced. The server sends a heartbeat every 15 s by default; keep this above
    /// twice the server's `--sse-heartbeat`.
    public var deadConnectionTimeout: Duration
    /// The delay before the first reconnect, until the server states its own (`retry:`).
    public var reconnectDelay: Duration
    /// The longest delay between attempts while the server stays unreachable (the delay
    /// doubles from the server's `retry:` with each failed attempt, with ±20 % jitter).
    public var maxReconnectDelay: Duration

    public init(deadConnectionTimeout: Duration = .seconds(45), reconnectDelay: Duration = .seconds(1),
                maxReconnectDelay: Duration = .seconds(15)) {
        self.deadConnectionTimeout = deadConnectionTimeout
        self.reconnectDelay = reconnectDelay
        self.maxReconnectDelay = maxReconnectDelay
    }
}

/// What the stream hands its owner, in the order the server sent it.
enum StreamSignal: Sendable {
    /// A connection was accepted (200, `text/event-stream`).
    case connected
    /// An event; `id` is the stream's last event id once it was dispatched.
    case event(id: Int64?, type: String, data: String)
    /// The last event id moved without an event (where a new stream starts).
    case position(Int64)
    /// The server refused the stream (401, 404...): the stream keeps trying, slowly.
    case refused(NavPrefsError)
    /// The connection ended or was given up for dead; a reconnect follows.
    case disconnected(String)
}

/// One profile's Server-Sent Events, kept open: reconnects with backoff honouring `retry:`,
/// resumes with `Last-Event-ID`, and replaces a connection that went silent longer than the
/// heartbeat allows (a network that dropped without a word).
final class EventStream: Sendable {
    let http: HTTPClient
    let profile: String
    let options: StreamOptions
    private let wakeup = Wakeup()

    init(http: HTTPClient, profile: String, options: StreamOptions) {
        self.http = http
        self.profile = profile
        self.options = options
    }

    /// Connects and reconnects until the calling task is cancelled. `lastEventID` is asked
    /// before each connection (the id the owner has applied up to); `deliver` runs for each
    /// signal in order, one at a time.
    func run(lastEventID: @escaping @Sendable () -> Int64?, deliver: @escaping @Sendable (StreamSignal) async -> Void) async {
        var retry = options.reconnectDelay
        var failures = 0
        while !Task.isCancelled {
            let outcome = await connectOnce(from: lastEventID(), retry: &retry, deliver: deliver)
            failures = outcome.accepted ? 0 : failures + 1
            await deliver(.disconnected(outcome.reason))
            guard !Task.isCancelled else { return }
            await wakeup.sleep(for: Self.delay(retry: retry, failures: failures, max: options.maxReconnectDelay))
        }
    }

    /// Cuts the wait before the next attempt short (a write just reached the server: so will the
    /// stream).
    func retryNow() { wakeup.wake() }

    /// The wait before the next attempt, with ±20 % jitter so that clients of a restarted server
    /// do not all come back in the same millisecond: right after a stream dropped, at most
    /// 500 ms (a server restart is back within a second, and its clients with it); after failed
    /// attempts, the server's `retry:` doubled per failure up to `max`.
    static func delay(retry: Duration, failures: Int, max: Duration) -> Duration {
        var delay = Swift.min(retry, .milliseconds(500))
        if failures > 0 {
            delay = retry
            for _ in 0..<Swift.min(failures - 1, 16) where delay < max { delay *= 2 }
        }
        delay = Swift.min(delay, max)
        return delay * Double.random(in: 0.8...1.2)
    }

    private func connectOnce(from lastEventID: Int64?, retry: inout Duration,
                             deliver: @escaping @Sendable (StreamSignal) async -> Void) async -> (accepted: Bool, reason: String) {
        let request: WireRequest
        do {
            request = try streamRequest(from: lastEventID)
        } catch {
            return (false, error.transportReason)
        }
        let connection = StreamConnection(http: http)
        connection.start(request)
        defer { connection.cancel() }
        let activity = Locked(ContinuousClock.now)
        let silent = Locked(false)
        let timeout = options.deadConnectionTimeout
        let outcome = await withTaskGroup(of: Void.self) { group in
            // The heartbeat watchdog: a connection silent for longer than `timeout` is dead.
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: timeout / 4)
                    if ContinuousClock.now - activity.withLock({ $0 }) > timeout {
                        silent.withLock { $0 = true }
                        connection.cancel()
                        return
                    }
                }
            }
            defer { group.cancelAll() }
            return await read(connection, activity: activity, retry: &retry, deliver: deliver)
        }
        return silent.withLock({ $0 }) ? (outcome.accepted, "silent for longer than \(timeout): taken for dead") : outcome
    }

    private func read(_ connection: StreamConnection, activity: Locked<ContinuousClock.Instant>, retry: inout Duration,
                      deliver: @escaping @Sendable (StreamSignal) async -> Void) async -> (accepted: Bool, reason: String) {
        var parser = SSEParser()
        var accepted = false
        var refusal: (status: Int, body: Data)?
        for await chunk in connection.chunks {
            activity.withLock { $0 = .now }
            switch chunk {
            case .head(let status, let contentType):
                if status == 200, contentType?.lowercased().hasPrefix("text/event-stream") == true {
                    accepted = true
                    await deliver(.connected)
                } else {
                    refusal = (status, Data())
                }
            case .data(let data):
                if refusal != nil {
                    refusal?.body.append(data)
                    continue
                }
                for item in parser.feed(data) {
                    switch item {
                    case .event(let type, let text, let id): await deliver(.event(id: Int64(id), type: type, data: text))
                    case .position(let id): if let id = Int64(id) { await deliver(.position(id)) }
                    case .retry(let milliseconds): retry = .milliseconds(milliseconds)
                    case .comment: break
                    }
                }
            case .end(let reason):
                if let refusal {
                    let error = HTTPClient.error(HTTPAnswer(status: refusal.status, headers: [:], body: refusal.body))
                    await deliver(.refused(error))
                    return (false, "refused: \(error)")
                }
                return (accepted, reason ?? "closed by the server")
            }
        }
        return (accepted, "stopped")
    }

    private func streamRequest(from lastEventID: Int64?) throws(NavPrefsError) -> WireRequest {
        var headers = [("Cache-Control", "no-cache")]
        if let lastEventID { headers.append(("Last-Event-ID", String(lastEventID))) }
        var request = try http.request("GET", "/v1/profiles/\(HTTPClient.segment(profile))/events", headers: headers, accept: "text/event-stream")
        // The transport's own idle timeout only backs up the watchdog above.
        request.timeout = options.deadConnectionTimeout * 2 + .seconds(30)
        return request
    }
}
