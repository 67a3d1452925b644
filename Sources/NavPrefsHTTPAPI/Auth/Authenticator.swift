import Foundation
import MicroHTTPServer
import NavPrefsCore
import NavPrefsCrypto
import NavPrefsStore
import Synchronization

/// Who may call what. With no token in the store the API is open (the service then listens on
/// loopback only, unless told otherwise: see ``Configuration``); once a token exists, every
/// route but health and readiness needs one: a profile token for its own profile's routes, an
/// admin token for everything. Another profile's routes answer 404, exactly as for a profile
/// that does not exist, so a token never learns which other profiles exist.
///
/// Tokens are looked up by the public id they carry and compared by SHA-256 in constant time.
/// Lookups are cached for ``cacheTTL``: a token revoked on another instance stops working there
/// within that time (at once on the instance that revoked it).
final class Authenticator: Sendable {
    /// What a route needs.
    enum Access: Equatable {
        case open
        case admin
        /// A profile's routes: that profile's token or an admin token.
        case profile(String)
        /// A profile's event stream: also a stream token (EventSource sends no headers).
        case events(String)
    }

    /// What ``decide(_:)`` concluded without waiting, or the check that needs the store.
    enum Decision {
        case allow
        case deny(APIError)
        /// The token needs a look in the store; answers the denial, if any.
        case check(@Sendable () async throws(StoreError) -> APIError?)
    }

    static let cacheTTL: Duration = .seconds(5)
    static let streamKeyName = "stream-token-key"
    static let streamCookie = "navprefs_stream"

    private struct Cached {
        let record: TokenRecord?
        let fetched: ContinuousClock.Instant
    }

    private struct State {
        var tokens: [String: Cached] = [:]
        var hasTokens = false
        var streamKey: String?

        /// Caches what the token `id` is (`nil`: revoked), first dropping stale entries once the
        /// cache holds ``maxCached``.
        mutating func remember(_ record: TokenRecord?, id: String, at now: ContinuousClock.Instant) {
            if tokens.count >= Authenticator.maxCached {
                tokens = tokens.filter { now - $0.value.fetched < Authenticator.cacheTTL }
                if tokens.count >= Authenticator.maxCached { tokens.removeAll(keepingCapacity: true) }
            }
            tokens[id] = Cached(record: record, fetched: now)
        }
    }

    static let maxCached = 10_000

    private let store: any TokenStore
    /// Authentication even with no token stored: the service listens beyond loopback.
    let alwaysRequired: Bool
    private let state = Mutex(State())

    init(store: any TokenStore, alwaysRequired: Bool) {
        self.store = store
        self.alwaysRequired = alwaysRequired
    }

    /// Whether requests need a token right now.
    var isRequired: Bool { alwaysRequired || hasTokens }

    /// Whether any token was stored at the last look.
    var hasTokens: Bool { state.withLock { $0.hasTokens } }

    /// Reads whether any token exists; called at start and then every ``cacheTTL``, so tokens
    /// created by another instance or the command line turn authentication on here too.
    func refresh() async {
        guard let tokens = try? await store.tokens() else { return }
        state.withLock { $0.hasTokens = !tokens.isEmpty }
    }

    /// The access `request`'s route needs, from its template.
    static func access(of request: APIRequest) -> Access {
        let template = request.template
        if template.hasPrefix("/v1/profiles/{profile}") {
            let profile = request.parameter("profile")
            return template == "/v1/profiles/{profile}/events" && request.http.method == "GET" ? .events(profile) : .profile(profile)
        }
        // The list of profiles too: names would tell a profile token which other profiles exist.
        if template.hasPrefix("/v1/admin/") || template == "/metrics" || template == "/v1/profiles" { return .admin }
        return .open
    }

    func decide(_ request: APIRequest) -> Decision {
        let access = Self.access(of: request)
        guard access != .open, isRequired else { return .allow }
        if let bearer = Self.bearerToken(request.http.headers) {
            guard let id = AccessToken.id(of: bearer) else { return .deny(Self.invalidToken()) }
            let now = ContinuousClock.now
            if let cached = state.withLock({ $0.tokens[id] }), now - cached.fetched < Self.cacheTTL {
                return Self.judge(bearer, cached.record, access).map(Decision.deny) ?? .allow
            }
            return .check { [self] () async throws(StoreError) -> APIError? in
                let record = try await store.token(id: id)
                // Only tokens that exist are cached: ids a client makes up must not fill memory.
                if let record { state.withLock { $0.remember(record, id: id, at: ContinuousClock.now) } }
                return Self.judge(bearer, record, access)
            }
        }
        if case .events(let profile) = access, let token = Self.streamToken(request.http) {
            return .check { [self] () async throws(StoreError) -> APIError? in
                let key = try await streamKey()
                let now = Int64(Date().timeIntervalSince1970)
                guard let granted = StreamToken.profile(of: token, key: key, now: now) else { return Self.invalidToken() }
                return granted.rawValue == profile ? nil : Self.notVisible(profile)
            }
        }
        return .deny(APIError(.unauthorized, "This route needs a token: send Authorization: Bearer <token>.",
                              headers: [("WWW-Authenticate", #"Bearer realm="navprefs""#)]))
    }

    /// `nil` if `token` is `record`'s and its scope covers `access`; else the answer.
    private static func judge(_ token: String, _ record: TokenRecord?, _ access: Access) -> APIError? {
        guard let record, AccessToken.matches(token, record) else { return invalidToken() }
        guard let own = record.profile else { return nil }  // admin
        switch access {
        case .open: return nil
        case .admin: return APIError(.forbidden, "This route needs an admin token; a profile token cannot use it.")
        case .profile(let profile), .events(let profile):
            return own.rawValue == profile ? nil : notVisible(profile)
        }
    }

    /// The same answer whether or not the profile exists.
    private static func notVisible(_ profile: String) -> APIError {
        APIError(.profileNotFound, "No profile '\(profile.prefix(80))' is visible with this token.")
    }

    private static func invalidToken() -> APIError {
        APIError(.unauthorized, "The token is not valid: unknown, revoked, expired or malformed.",
                 headers: [("WWW-Authenticate", #"Bearer realm="navprefs", error="invalid_token""#)])
    }

    // MARK: Tokens made and revoked through this instance

    func created(_ record: TokenRecord) {
        state.withLock { state in
            state.remember(record, id: record.id, at: ContinuousClock.now)
            state.hasTokens = true
        }
    }

    func revoked(_ id: String) {
        state.withLock { $0.remember(nil, id: id, at: ContinuousClock.now) }
    }

    // MARK: Stream tokens

    /// The key stream tokens are signed with, the same on every instance of the database.
    func streamKey() async throws(StoreError) -> String {
        if let key = state.withLock({ $0.streamKey }) { return key }
        guard let candidate = Crypto.randomBytes(32).map(Crypto.hex) else {
            throw .internal(reason: "the CSPRNG cannot make a stream-token key")
        }
        let key = try await store.secret(named: Self.streamKeyName, candidate: candidate)
        state.withLock { $0.streamKey = key }
        return key
    }

    // MARK: Credentials of a request

    static func bearerToken(_ headers: HTTPHeaders) -> String? {
        guard let value = headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return "" }  // present but unusable: invalid
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// A stream token from the `access_token` query argument or the `navprefs_stream` cookie.
    static func streamToken(_ request: HTTPRequest) -> String? {
        if let token = request.queryValue("access_token"), !token.isEmpty { return token }
        guard let cookies = request.headers["Cookie"] else { return nil }
        for cookie in cookies.split(separator: ";") {
            let pair = cookie.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == streamCookie { return String(pair[1]) }
        }
        return nil
    }
}
