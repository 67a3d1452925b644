import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// `GET /v1/profiles/{profile}/events` asked for as JSON (`Accept: application/json`): the logged
/// events after `after`, at most `limit`, in one answer, for clients that cannot hold a stream
/// open (an app woken in the background, a cron job).
///
/// The answer says where to continue (`lastEventId`, the next `after`) and whether more is
/// logged (`hasMore`); a page holds at most ``maxPageBytes`` of event data, so `limit` events
/// of a large log come in several pages, none skipped. When the log no longer holds what comes after `after` (pruned, or an id
/// this profile never issued), it says so with `reset`, as the stream does, and carries no
/// events: read the profile's state again (`GET .../state`) and continue after its `lastEventId`.
enum EventPage {
    static let defaultLimit = 100
    static let maxLimit = 1_000
    /// The most bytes of event data one page holds (one event more when the first alone is
    /// larger): a page of 1,000 events of 64 KiB would be 64 MB. A page cut short says so as
    /// any page does, with `hasMore` and the `lastEventId` to continue after.
    static let maxPageBytes = 1 << 20

    /// Whether `request` asks for JSON rather than the stream: its `Accept` names
    /// `application/json` with a quality above 0 and above `text/event-stream`'s.
    static func isWanted(_ request: HTTPRequest) -> Bool {
        guard request.headers.contains(HeaderName.accept) else { return false }  // the usual case: EventSource, curl
        var json = 0.0, stream = 0.0
        for member in request.headers.listMembers(for: HeaderName.accept) {
            let parts = member.split(separator: ";").map { $0.trimmingASCIISpaces().lowercased() }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            switch parts.first {
            case "application/json"?: json = max(json, quality)
            case "text/event-stream"?: stream = max(stream, quality)
            default: break
            }
        }
        return json > 0 && json > stream
    }

    /// `after` (default 0) and `limit` (1 to 1000, default 100), checked whichever way the
    /// events are asked for, so that a malformed one is 400 also for a stream (which ignores them).
    static func bounds(of request: HTTPRequest) throws(APIError) -> (after: Int64, limit: Int) {
        (try request.wholeNumber("after", in: 0...Int64.max) ?? 0,
         Int(try request.wholeNumber("limit", in: 1...Int64(maxLimit)) ?? Int64(defaultLimit)))
    }

    static func read(_ request: APIRequest, profile: ProfileName, filter: EventFilter, authors: AuthorFilter? = nil,
                     store: any Store) throws(APIError) -> APIResult {
        let (after, limit) = try bounds(of: request.http)
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let log = try await store.eventLogBounds(of: profile)
            if case .reset(let reason, _) = ReplayPlan.plan(lastEventID: String(after), earliest: log.earliest, latest: log.latest) {
                return answer(profile, after: after, events: [], next: log.latest, latest: log.latest, reset: (reason, log))
            }
            let events = try await store.events(of: profile, after: after, limit: limit, maxBytes: maxPageBytes)
            // Pruned between reading the bounds and the events: the log cannot continue from `after`.
            if (events.first.map { $0.id != after + 1 } ?? (after < log.latest)) {
                return answer(profile, after: after, events: [], next: log.latest, latest: log.latest, reset: (.expired, log))
            }
            let next = events.last?.id ?? after
            return answer(profile, after: after, events: events.filter { filter.admits($0.type) && authors?.admits($0) ?? true }, next: next,
                          latest: max(log.latest, next), reset: nil)
        }
    }

    private static func answer(_ profile: ProfileName, after: Int64, events: [LoggedEvent], next: Int64, latest: Int64,
                               reset: (reason: ReplayPlan.ResetReason, log: EventLogBounds)?) -> HTTPResponse {
        var body = JSONObjectBuilder()
        body.add("profile", profile.rawValue)
        body.add("after", after)
        body.add("events", json: "[" + events.map { event in
            var item = JSONObjectBuilder()
            item.add("id", event.id)
            item.add("type", event.type.rawValue)
            item.add("data", json: event.data)
            item.add("timestamp", AccessToken.timestamp(milliseconds: event.timestamp))
            return item.json
        }.joined(separator: ",") + "]")
        body.add("lastEventId", next)
        body.add("latest", latest)
        body.add("hasMore", reset == nil && next < latest)
        if let reset {
            var data = JSONObjectBuilder()
            data.add("reason", reset.reason.rawValue)
            data.add("earliest", reset.log.earliest)
            data.add("latest", reset.log.latest)
            data.add("action", "read the profile's state again, then continue after its lastEventId")
            body.add("reset", json: data.json)
        } else {
            body.addNull("reset")
        }
        var response = JSONResponse.make(body, version: nil)
        response.headers.add(HeaderName.cacheControl, "no-cache")
        return response
    }
}
