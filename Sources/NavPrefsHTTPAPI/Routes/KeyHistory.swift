import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// Who changed what, per key: the answer of `GET /v1/profiles/{profile}/preferences/{key}/history`,
/// and of the same for the counter (`.../counter/history`) and the font settings
/// (`.../font/history`), each declared with its resource (``PreferenceRoutes``, ``CounterRoutes``,
/// ``FontRoutes``).
///
/// Each change newest first, paged (`?before=` the `next` of the page before, `?limit=`), as far
/// as the profile's event log reaches: its value (or the view's state) as its event logged it,
/// its author (token id and label, or `open`, and the device), when it committed, its event id.
/// A key never written has an empty history, not a 404: a history is a question about the past,
/// and "nothing" is its answer. `historyBegins` is the oldest event the log still keeps, and
/// `complete` says whether the log ever forgot anything of the profile: a history that begins
/// after a pruning may lack older changes. The counter's history is `numIndex`'s, and the font
/// settings' is both font keys' (each change of either logs one `refresh` for the pair).
enum KeyHistory {
    static let defaultLimit = 100
    static let maxLimit = 1_000
    /// A page stops growing past this many bytes of logged data (its first change whatever its
    /// size): a key's values can be 64 KiB each, and the store reads no change past the bound.
    static let maxPageBytes = 1 << 20

    /// The page of `subject`'s history (``HistorySubject``) the request asks for; `key` is the
    /// key asked for, when a preference's.
    static func read(_ request: APIRequest, of subject: String, key: PreferenceKey? = nil, store: any Store) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let (before, limit) = try paging(of: request.http)
        // On the store's readers, like the event log's pages: a page can be megabytes of values.
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            answer(try await store.perform(.history(of: subject, of: profile, before: before, limit: limit, maxBytes: maxPageBytes)),
                   profile: profile, key: key)
        }
    }

    /// `before` (an event id, 1 or more; default: from the newest) and `limit` (1 to 1000, default 100).
    static func paging(of request: HTTPRequest) throws(APIError) -> (before: Int64?, limit: Int) {
        (try request.wholeNumber("before", in: 1...Int64.max), Int(try request.wholeNumber("limit", in: 1...Int64(maxLimit)) ?? Int64(defaultLimit)))
    }

    private static func answer(_ page: HistoryPage, profile: ProfileName, key: PreferenceKey?) -> HTTPResponse {
        let changes = page.events.map(Self.change)
        var body = JSONObjectBuilder()
        body.add("profile", profile.rawValue)
        if let key { body.add("key", key.rawValue) }
        body.add("changes", json: "[" + changes.joined(separator: ",") + "]")
        if let next = page.next { body.add("next", next) } else { body.addNull("next") }
        body.add("historyBegins", page.log.earliest)
        body.add("complete", page.log.earliest <= 1)
        // No ETag (a page changes with every change of the profile and with its pruning): a
        // list, which caches keep none of (`no-store`, as every answer without one).
        return JSONResponse.make(body, version: nil)
    }

    /// One change: its event id, type and time, its author, then what its event logged of it
    /// (the value, or the view's state), without what the page already says (the profile, the
    /// key) or repeats (the version, which is the event id; a refresh's constant name).
    static func change(_ event: LoggedEvent) -> String {
        var item = JSONObjectBuilder()
        item.add("eventId", event.id)
        item.add("type", event.type.rawValue)
        item.add("timestamp", Timestamp.rfc3339(milliseconds: event.timestamp))
        guard case .object(let data)? = try? JSONValue.parse(event.data) else {
            // Data no parser here reads (nested past Jansson's depth, from before the API bounded
            // it): shown as logged, so that the change still counts.
            item.addNull("author")
            item.add("data", json: event.data)
            return item.json
        }
        item.add("author", data["author"] ?? .null)
        for member in data where !["profile", "key", "version", "author", "name"].contains(member.key) {
            item.add(member.key, member.value)
        }
        return item.json
    }
}
