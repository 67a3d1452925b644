import MicroHTTPServer
import NavPrefsCore
import NavPrefsStore

/// `GET /v1/profiles?after=NAME&limit=N`: the profiles the store holds, for admins (the console's
/// admin page). Names in byte order, `limit` per page (100 by default, at most 1000), and `next`
/// naming the `after` of the following page, `null` on the last. A profile token cannot use it
/// (403): listing names would tell a token which other profiles exist.
struct ProfileListRoutes: RouteCollection {
    static let defaultLimit = 100
    static let maxLimit = 1_000

    let store: any Store

    var routes: [Route] {
        [Route(.get, "/v1/profiles", .admin, .reads, list)]
    }

    private func list(_ request: APIRequest) throws(APIError) -> APIResult {
        let (after, limit) = try Self.page(of: request.http)
        let store = self.store
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let page = try await store.profiles(after: after, limit: limit)
            let items = page.profiles.map { profile in
                var item = JSONObjectBuilder()
                item.add("name", profile.name.rawValue)
                item.add("createdAt", AccessToken.timestamp(milliseconds: profile.createdAt))
                item.add("latestEventId", profile.latestEventID)
                item.add("storageBytes", profile.storageBytes)
                item.add("eventLogBytes", profile.eventLogBytes)
                return item.json
            }
            var body = JSONObjectBuilder()
            body.add("profiles", json: "[" + items.joined(separator: ",") + "]")
            if let next = page.next { body.add("next", next.rawValue) } else { body.addNull("next") }
            var response = JSONResponse.make(body, version: nil)
            // Names change with every first write: never serve a stale list from a cache.
            response.headers.add(HeaderName.cacheControl, "no-store")
            return response
        }
    }

    /// `after` (a profile name) and `limit` (1 to ``maxLimit``), each optional; anything else is 400.
    static func page(of request: HTTPRequest) throws(APIError) -> (after: ProfileName?, limit: Int) {
        var after: ProfileName?
        if let text = request.queryValue("after") {
            guard let name = try? ProfileName(text) else {
                throw APIError(.invalidQuery, "'after' is a profile name, as a previous page's 'next' gave it; not '\(text.prefix(80))'.")
            }
            after = name
        }
        var limit = defaultLimit
        if let text = request.queryValue("limit") {
            guard text.utf8.count <= 4, let number = Int(text), (1...maxLimit).contains(number) else {
                throw APIError(.invalidQuery, "'limit' is a whole number from 1 to \(maxLimit); not '\(text.prefix(40))'.")
            }
            limit = number
        }
        return (after, limit)
    }
}
