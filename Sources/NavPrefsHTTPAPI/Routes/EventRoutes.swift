import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// `GET /v1/profiles/{profile}/events`: the profile's changes as Server-Sent Events (E-1..E-8).
///
/// With `Last-Event-ID` (or `?last_event_id=`; the header wins; sent twice, 400) the stream replays every logged
/// event after that id, then goes live, with no gap and no duplicate; an id the log can no
/// longer continue gets an explicit `reset` event. Without one it starts from now, after an
/// `id:` line holding the newest id, so a reconnect resumes from there. Asked for as JSON
/// (`Accept: application/json`), it answers a page of the log instead (``EventPage``).
struct EventRoutes: RouteCollection {
    let store: any Store
    let hub: EventHub

    static let resource = "/v1/profiles/{profile}/events"

    var routes: [Route] { [Route(.get, Self.resource, .profileStream, .reads, subscribe)] }

    private func subscribe(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let filter: EventFilter
        do {
            filter = try request.http.queryValue("types").map { text throws(EventFilterError) in try EventFilter(parsing: text) } ?? .all
        } catch {
            throw APIError(.invalidQuery, "\(error.description.prefix(1).uppercased())\(error.description.dropFirst()).")
        }
        let authors = try AuthorFilter(of: request)
        // The same events as one JSON page, for clients that cannot hold a stream open.
        if EventPage.isWanted(request.http) {
            return try EventPage.read(request, profile: profile, filter: filter, authors: authors, store: store)
        }
        _ = try EventPage.bounds(of: request.http)
        // HEAD: the stream's headers, and no stream (nothing registered, nothing replayed).
        if request.http.method == "HEAD" { return .immediate(HTTPResponse(status: 200, headers: Self.streamHeaders, body: .stream { _ in })) }
        // A field value's surrounding spaces and tabs are not part of it (RFC 9110 §5.5): `3 ` is 3.
        let lastEventID = request.http.headers[HeaderName.lastEventID].map(Self.withoutSurroundingWhitespace)
            ?? request.http.queryValue("last_event_id")
        let subscriber = try hub.register(profile: profile, client: request.client, issuer: request.caller.tokenID, filter: filter,
                                          authors: authors)
        let store = self.store, hub = self.hub
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let opening: Opening
            do throws(StoreError) {
                opening = try await Self.opening(store: store, profile: profile, wants: subscriber.wants, lastEventID: lastEventID,
                                                 limits: hub.limits)
            } catch {
                hub.remove(subscriber)
                throw error
            }
            return HTTPResponse(status: 200, headers: Self.streamHeaders, body: .stream { stream in
                stream.onTermination { _ in hub.remove(subscriber) }
                hub.countSent(opening.eventCount + subscriber.attach(stream, opening: opening.bytes, lastID: opening.lastID))
            })
        }
    }

    static var streamHeaders: HTTPHeaders {
        var headers = HTTPHeaders(reservingCapacity: 8)
        headers.add(HeaderName.contentType, "text/event-stream")
        headers.add(HeaderName.cacheControl, "no-cache")
        headers.add(HeaderName.xAccelBuffering, "no")  // nginx would otherwise buffer the stream
        return headers
    }

    /// Events read from the log at a time while replaying, and at most the replay's byte limit
    /// of them (the first whatever its size): the replay stops as soon as it passes that limit.
    static let replayPage = 32

    /// What a stream starts with, and the id it has covered.
    struct Opening: Sendable {
        var bytes: [UInt8]
        var lastID: Int64
        /// Logged events among `bytes` (replayed), for `navprefs_sse_events_sent_total`.
        var eventCount = 0
    }

    /// The retry hint, then the replay (or a `reset`, or the position to start from).
    /// - Parameter wants: whether the stream carries an event (its filters); the events it
    ///   leaves out still move its position.
    static func opening(store: any Store, profile: ProfileName, wants: (LoggedEvent) -> Bool, lastEventID: String?,
                        limits: EventHub.Limits) async throws(StoreError) -> Opening {
        let bounds = try await store.eventLogBounds(of: profile)
        let retry = SSEFrame.retry(milliseconds: Int(limits.retry.milliseconds))
        switch ReplayPlan.plan(lastEventID: lastEventID, earliest: bounds.earliest, latest: bounds.latest) {
        case .fromNow(let after):
            return Opening(bytes: retry + SSEFrame.position(after), lastID: after)
        case .reset(let reason, let resumeAfter):
            return reset(reason, profile: profile, given: lastEventID, bounds: bounds, after: resumeAfter, retry: retry)
        case .replay(let after):
            var bytes = retry
            var cursor = after
            var lastWritten = after
            var replayed = 0
            while cursor < bounds.latest {
                let page = try await store.events(of: profile, after: cursor, limit: Self.replayPage, maxBytes: limits.maxReplayBytes)
                guard let first = page.first, first.id == cursor + 1 else {
                    // Pruned between reading the bounds and the events: the log cannot continue.
                    return reset(.expired, profile: profile, given: lastEventID, bounds: bounds, after: bounds.latest, retry: retry)
                }
                for event in page {
                    cursor = event.id
                    guard wants(event) else { continue }
                    bytes += SSEFrame.event(event)
                    lastWritten = event.id
                    replayed += 1
                    // Checked per event: a stream never holds more than its limit plus one event.
                    if bytes.count > limits.maxReplayBytes {
                        return reset(.tooFarBehind, profile: profile, given: lastEventID, bounds: bounds, after: bounds.latest, retry: retry)
                    }
                }
            }
            // Events the filter left out still move the client's position past them.
            if lastWritten < cursor { bytes += SSEFrame.position(cursor) }
            return Opening(bytes: bytes, lastID: cursor, eventCount: replayed)
        }
    }

    /// The `reset` event (E-3): refetch the state, then follow the stream from its `id`.
    private static func reset(_ reason: ReplayPlan.ResetReason, profile: ProfileName, given: String?, bounds: EventLogBounds,
                              after: Int64, retry: [UInt8]) -> Opening {
        var data = JSONObjectBuilder()
        data.add("profile", profile.rawValue)
        data.add("reason", reason.rawValue)
        if let given { data.add("lastEventId", String(given.prefix(40))) }
        data.add("earliest", bounds.earliest)
        data.add("latest", bounds.latest)
        data.add("action", "refetch the profile's state; events continue after this one")
        return Opening(bytes: retry + SSEFrame.control(.reset, data: data.json, id: after), lastID: after)
    }
}

extension EventRoutes {
    /// `value` without the spaces and tabs around it.
    static func withoutSurroundingWhitespace(_ value: String) -> String {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(value.drop(while: isWhitespace).reversed().drop(while: isWhitespace).reversed())
    }
}
