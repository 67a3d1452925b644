import Foundation
import MicroHTTPServer
import NavPrefsCore
import NavPrefsCrypto
import NavPrefsJSON
import NavPrefsStore

/// The admin API for access tokens, and short-lived stream tokens for browsers:
/// - `POST /v1/admin/tokens` `{"profile": "ana"}` or `{"admin": true}`, optional `"label"`:
///   201 with the token, shown this once;
/// - `GET /v1/admin/tokens`: every token's id, scope, label and creation time (never a secret);
/// - `DELETE /v1/admin/tokens/{id}`: 204, the token stops working at once here and within
///   ``Authenticator/cacheTTL`` on other instances;
/// - `POST /v1/profiles/{profile}/events/token`: 201 with a stream token for that profile's
///   events, valid for ``StreamToken/lifetimeSeconds``, also set as an HttpOnly cookie scoped to
///   the stream's path, since EventSource cannot send an Authorization header.
/// While no token exists (open mode), this API makes none (403): the first admin token is made
/// with the command line (`navprefs tokens create --admin`) by whoever can open the database,
/// so that whoever merely reaches the port (another local user, a page that got past the Host
/// and Origin checks) cannot make the only admin token and lock the owner out. From then on
/// only an admin token may use `/v1/admin`.
struct TokenRoutes: RouteCollection {
    let store: any TokenStore
    let authenticator: Authenticator
    /// Ends the event streams a revoked token opened (on this instance; others notice within
    /// ``Authenticator/cacheTTL``).
    let endStreams: @Sendable (_ issuedBy: String) -> Void

    var routes: [Route] {
        [
            Route(.post, "/v1/admin/tokens", .admin, .writes, create),
            Route(.get, "/v1/admin/tokens", .admin, .reads, list),
            Route(.delete, "/v1/admin/tokens/{id}", .admin, .writes, revoke),
            Route(.post, "/v1/profiles/{profile}/events/token", .profile, .writes, streamToken),
        ]
    }

    private func create(_ request: APIRequest) throws(APIError) -> APIResult {
        guard authenticator.isRequired else {
            throw APIError(.forbidden, "While no token exists, the first admin token is made with the command line: navprefs tokens create --admin.")
        }
        let body = try JSONBody.object(of: request.http, allowed: ["profile", "admin", "label"], required: true) ?? [:]
        let profile: ProfileName?
        switch (body["profile"], body["admin"]) {
        case (.string(let name)?, nil), (.string(let name)?, .bool(false)?):
            do {
                profile = try ProfileName(name)
            } catch {
                throw APIError(.invalidProfileName, "'\(name.prefix(80))' is not a valid profile name: \(error).",
                               extensions: ["pointer": .string("/profile")])
            }
        case (nil, .bool(true)?):
            profile = nil
        default:
            throw APIError(.invalidBody, "Give either 'profile' (a profile name) or 'admin': true.")
        }
        let label: String
        switch body["label"] {
        case nil: label = ""
        case .string(let text)? where AccessToken.isValidLabel(text):
            label = text
        default:
            throw APIError(.invalidBody, "'label' is text of at most \(AccessToken.maxLabel) code points, without control characters.",
                           extensions: ["pointer": .string("/label")])
        }
        guard let made = AccessToken.make(profile: profile, label: label, now: Int64(Date().timeIntervalSince1970 * 1000)) else {
            throw APIError(.internalError, "The server cannot make random tokens.")
        }
        let (store, authenticator) = (self.store, self.authenticator)
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            try await store.createToken(made.record)
            authenticator.created(made.record)
            var body = Self.describe(made.record)
            body.add("token", made.token)
            var response = JSONResponse.make(body, version: nil)
            response.status = 201
            response.headers.add(HeaderName.cacheControl, "no-store")
            return response
        }
    }

    private func list(_ request: APIRequest) throws(APIError) -> APIResult {
        let store = self.store
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let tokens = try await store.tokens()
            let items = tokens.map { Self.describe($0).json }.joined(separator: ",")
            var body = JSONObjectBuilder()
            body.add("tokens", json: "[" + items + "]")
            return JSONResponse.make(body, version: nil)
        }
    }

    private func revoke(_ request: APIRequest) throws(APIError) -> APIResult {
        let id = request.parameter("id")
        let (store, authenticator) = (self.store, self.authenticator)
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            guard try await store.revokeToken(id: id) else {
                return APIError(.tokenNotFound, "No token has the id '\(id.prefix(80))'.").response(instance: request.http.path)
            }
            authenticator.revoked(id)
            endStreams(id)
            return HTTPResponse(status: 204)
        }
    }

    private func streamToken(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let authenticator = self.authenticator
        let (issuer, secure) = (request.caller.tokenID, request.isSecure)
        return .deferred { () async throws(StoreError) -> HTTPResponse in
            let key = try await authenticator.streamKey()
            let expiry = Int64(Date().timeIntervalSince1970) + StreamToken.lifetimeSeconds
            let token = StreamToken.make(profile: profile, issuer: issuer, expiry: expiry, key: key)
            var body = JSONObjectBuilder()
            body.add("profile", profile.rawValue)
            body.add("token", token)
            body.add("expiresAt", AccessToken.timestamp(milliseconds: expiry * 1000))
            var response = JSONResponse.make(body, version: nil)
            response.status = 201
            response.headers.add(HeaderName.cacheControl, "no-store")
            let path = "/v1/profiles/" + (profile.rawValue.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "") + "/events"
            // Secure when the client reached a trusted proxy over TLS: the cookie never goes out in clear.
            response.headers.add(HeaderName.setCookie, "\(Authenticator.streamCookie)=\(token); Path=\(path); Max-Age=\(StreamToken.lifetimeSeconds); HttpOnly; SameSite=Strict"
                                 + (secure ? "; Secure" : ""))
            return response
        }
    }

    /// A token as listed: never its secret or hash.
    private static func describe(_ record: TokenRecord) -> JSONObjectBuilder {
        var body = JSONObjectBuilder()
        body.add("id", record.id)
        if let profile = record.profile { body.add("profile", profile.rawValue) } else { body.addNull("profile") }
        body.add("admin", record.profile == nil)
        body.add("label", record.label)
        body.add("createdAt", AccessToken.timestamp(milliseconds: record.createdAt))
        return body
    }

}
