import Foundation
import MicroHTTPServer
import NavPrefsCore
import NavPrefsCrypto
import NavPrefsStore
import Synchronization

/// Who may call what. With no token in the store the API is open (the service then listens on
/// loopback only, unless told otherwise: see `Configuration`); once a token exists, every route
/// but the ones declared ``Route/Access/public`` needs one: a profile token for its own
/// profile's routes, an admin token for everything. What a route needs is its declaration's
/// (``Route/access``), never a guess from its path. Another profile's routes answer 404,
/// exactly as for a profile that does not exist, so a token never learns which other profiles
/// exist.
///
/// Tokens are looked up by the public id they carry and compared by SHA-256 in constant time.
/// Lookups are cached for ``cacheTTL``, and the whole list is read again every ``cacheTTL``: a
/// token revoked on another instance stops working here, and the event streams it opened end,
/// within that time (at once on the instance that revoked it). While no token exists the list
/// is read every ``openModeLook``: the first token, made by the command line or on another
/// instance, ends the open mode here within that time, and with it every stream admitted
/// without a token (``tokensAppeared``).
final class Authenticator: Sendable {
    /// Who is calling: the id of the access token that vouched for the request (directly, or
    /// through a stream token it issued), and its label, read with the token and cached with it
    /// (a write records both as its author); `nil` when no token was needed.
    struct Caller: Sendable, Equatable {
        let tokenID: String?
        let label: String?
        /// An admin token, or no token needed (the open mode, an open route): the caller may see
        /// every profile, and what admins alone may ask (a profile's events by author).
        let seesEveryProfile: Bool
        static let anonymous = Caller(tokenID: nil, label: nil, seesEveryProfile: true)

        init(tokenID: String?, label: String?, seesEveryProfile: Bool) {
            self.tokenID = tokenID
            self.label = label
            self.seesEveryProfile = seesEveryProfile
        }

        /// The caller an access token makes.
        init(token record: TokenRecord?, id: String) {
            self.init(tokenID: id, label: record?.label, seesEveryProfile: record != nil && record?.profile == nil)
        }
    }

    /// What ``decide(_:profile:head:)`` concluded without waiting, or
    /// the check that needs the store.
    enum Decision {
        case allow(Caller)
        case deny(APIError)
        /// The token needs a look in the store.
        case check(@Sendable () async throws(StoreError) -> Verdict)
    }

    enum Verdict {
        case allow(Caller)
        case deny(APIError)
    }

    static let cacheTTL: Duration = .seconds(5)
    /// How often the token list is read while none exists (the open mode).
    static let openModeLook: Duration = .milliseconds(250)
    static let streamKeyName = "stream-token-key"
    static let streamCookie = "navprefs_stream"
    static let maxCached = 10_000

    private struct Cached {
        let record: TokenRecord?
        let fetched: ContinuousClock.Instant
    }

    private struct State {
        var tokens: [String: Cached] = [:]
        var hasTokens = false
        /// When the newest token list taken in was read: a list read before it (a slow read
        /// that finished late) says less than what was taken in already.
        var listedAt: ContinuousClock.Instant?
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

    private let store: any TokenStore
    /// Authentication even with no token stored: the service listens beyond loopback.
    let alwaysRequired: Bool
    /// Mixed into the stream-token key, from a file outside the database (`--stream-secret-file`):
    /// with it, someone who can only read the database cannot forge stream tokens.
    private let streamSecret: String?
    private let state = Mutex(State())
    /// Called when tokens exist where none did: what was admitted without one must end.
    private let tokensAppeared: @Sendable () -> Void

    init(store: any TokenStore, alwaysRequired: Bool, streamSecret: String? = nil, tokensAppeared: @escaping @Sendable () -> Void = {}) {
        self.store = store
        self.alwaysRequired = alwaysRequired
        self.streamSecret = streamSecret
        self.tokensAppeared = tokensAppeared
    }

    /// Whether requests need a token right now.
    var isRequired: Bool { alwaysRequired || hasTokens }

    /// Whether any token was stored at the last look.
    var hasTokens: Bool { state.withLock { $0.hasTokens } }

    /// Reads every token: whether any exists, and the ids that do. Called at start and then
    /// every ``cacheTTL``, so tokens created elsewhere (another instance, the command line) turn
    /// authentication on here too, and tokens revoked elsewhere are forgotten. Answers the ids
    /// that exist, or `nil` when the store could not say.
    @discardableResult
    func refresh() async -> Set<String>? {
        let listedAt = ContinuousClock.now
        guard let tokens = try? await store.tokens() else { return nil }
        let ids = Set(tokens.map(\.id))
        if learn(existing: ids, listedAt: listedAt) { tokensAppeared() }
        return ids
    }

    /// Takes in a list of the tokens that existed at `listedAt`; answers whether tokens exist
    /// where none did. What this instance learnt after `listedAt` (a token made here while the
    /// list was read) is newer than the list and stays: else a token made during a refresh read
    /// as revoked for ``cacheTTL``, and the first token made during one turned the open mode on
    /// again. A list read before one taken in already is dropped: two reads overlap (the
    /// periodic look and a refresh asked for), and the older finishing last turned the open mode
    /// back on after the newer had seen the first token (CI, main 981fb6f).
    func learn(existing ids: Set<String>, listedAt: ContinuousClock.Instant) -> Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            if let newest = state.listedAt, listedAt < newest { return false }
            state.listedAt = listedAt
            let learntSince = state.tokens.values.contains { $0.record != nil && $0.fetched >= listedAt }
            let appeared = !state.hasTokens && !ids.isEmpty
            state.hasTokens = !ids.isEmpty || learntSince
            for (id, cached) in state.tokens where cached.record != nil && !ids.contains(id) && cached.fetched < listedAt {
                state.remember(nil, id: id, at: now)
            }
            return appeared
        }
    }

    /// Decides whether the request `head` may call a route that declares `access`, about
    /// `profile` (the route's `{profile}` value, for ``Route/Access/profile`` and
    /// ``Route/Access/profileStream``).
    func decide(_ access: Route.Access, profile: String, head: HTTPRequestHead) -> Decision {
        guard access != .public else { return .allow(.anonymous) }
        let bearer = Self.bearerToken(head.headers)
        // Open (no token known): a request without a token passes; one with a token is looked
        // up, since the token may have been made elsewhere since the last look (the command
        // line, another instance): then authentication is on from this request.
        guard isRequired || bearer != nil else { return .allow(.anonymous) }
        if let bearer {
            guard let id = AccessToken.id(of: bearer) else {
                guard isRequired else { return .allow(.anonymous) }
                return .deny(bearer.isEmpty ? Self.notBearer() : Self.invalidToken())
            }
            let now = ContinuousClock.now
            if let cached = state.withLock({ $0.tokens[id] }), now - cached.fetched < Self.cacheTTL {
                return Self.judge(bearer, cached.record, access, profile).map(Decision.deny) ?? .allow(Caller(token: cached.record, id: id))
            }
            return .check { [self] () async throws(StoreError) -> Verdict in
                let record = try await store.token(id: id)
                // Only tokens that exist are cached: ids a client makes up must not fill memory.
                if let record {
                    let appeared = state.withLock { state in
                        state.remember(record, id: id, at: ContinuousClock.now)
                        defer { state.hasTokens = true }
                        return !state.hasTokens
                    }
                    if appeared { tokensAppeared() }
                } else if !isRequired {
                    return .allow(.anonymous)
                }
                return Self.judge(bearer, record, access, profile).map(Verdict.deny) ?? .allow(Caller(token: record, id: id))
            }
        }
        if access == .profileStream, let token = Self.streamToken(head) {
            return .check { [self] () async throws(StoreError) -> Verdict in
                let key = try await streamKey()
                guard let grant = StreamToken.grant(of: token, key: key, now: Int64(Date().timeIntervalSince1970)) else {
                    return .deny(Self.invalidToken())
                }
                // The token that issued it must still exist: revoking it revokes its stream tokens.
                var issuer: String?
                if grant.issuer != StreamToken.openIssuer {
                    guard try await exists(grant.issuer) else { return .deny(Self.invalidToken()) }
                    issuer = grant.issuer
                } else if isRequired {
                    return .deny(Self.invalidToken())  // made while no token was needed; one is now
                }
                return grant.profile.rawValue == profile ? .allow(Caller(tokenID: issuer, label: nil, seesEveryProfile: false)) : .deny(Self.notVisible(profile))
            }
        }
        return .deny(APIError(.unauthorized, "This route needs a token: send Authorization: Bearer <token>.",
                              headers: [(HeaderName.wwwAuthenticate, #"Bearer realm="navprefs""#)]))
    }

    /// Whether the token `id` exists (cached for ``cacheTTL``, like every lookup).
    private func exists(_ id: String) async throws(StoreError) -> Bool {
        if let cached = state.withLock({ $0.tokens[id] }), ContinuousClock.now - cached.fetched < Self.cacheTTL {
            return cached.record != nil
        }
        let record = try await store.token(id: id)
        if let record { state.withLock { $0.remember(record, id: id, at: ContinuousClock.now) } }
        return record != nil
    }

    /// `nil` if `token` is `record`'s and its scope covers `access` to `profile`; else the answer.
    private static func judge(_ token: String, _ record: TokenRecord?, _ access: Route.Access, _ profile: String) -> APIError? {
        guard let record, AccessToken.matches(token, record) else { return invalidToken() }
        guard let own = record.profile else { return nil }  // admin
        switch access {
        case .public: return nil
        case .admin: return APIError(.forbidden, "This route needs an admin token; a profile token cannot use it.")
        case .profile, .profileStream:
            return own.rawValue == profile ? nil : notVisible(profile)
        }
    }

    /// The same answer whether or not the profile exists.
    private static func notVisible(_ profile: String) -> APIError {
        APIError(.profileNotFound, "No profile '\(profile.prefix(80))' is visible with this token.")
    }

    /// An `Authorization` field that does not read `Bearer <token>` (a token sent bare, `Basic`).
    private static func notBearer() -> APIError {
        APIError(.unauthorized, "The Authorization field must read 'Bearer <token>': send 'Authorization: Bearer npt_...'.",
                 headers: [(HeaderName.wwwAuthenticate, #"Bearer realm="navprefs", error="invalid_token""#)])
    }

    private static func invalidToken() -> APIError {
        APIError(.unauthorized, "The token is not valid: unknown, revoked, expired or malformed.",
                 headers: [(HeaderName.wwwAuthenticate, #"Bearer realm="navprefs", error="invalid_token""#)])
    }

    // MARK: Tokens made and revoked through this instance

    func created(_ record: TokenRecord) {
        let appeared = state.withLock { state in
            state.remember(record, id: record.id, at: ContinuousClock.now)
            defer { state.hasTokens = true }
            return !state.hasTokens
        }
        if appeared { tokensAppeared() }
    }

    func revoked(_ id: String) {
        state.withLock { $0.remember(nil, id: id, at: ContinuousClock.now) }
    }

    // MARK: Stream tokens

    /// The key stream tokens are signed with, the same on every instance of the database: the
    /// secret stored in the database, mixed with ``streamSecret`` when the operator gave one.
    func streamKey() async throws(StoreError) -> String {
        if let key = state.withLock({ $0.streamKey }) { return key }
        guard let candidate = Crypto.randomBytes(32).map(Crypto.hex) else {
            throw .internal(reason: "the CSPRNG cannot make a stream-token key")
        }
        let stored = try await store.secret(named: Self.streamKeyName, candidate: candidate)
        let key = streamSecret.map { Crypto.hmacSHA256Hex(key: $0, stored) } ?? stored
        state.withLock { $0.streamKey = key }
        return key
    }

    // MARK: Credentials of a request

    static func bearerToken(_ headers: HTTPHeaders) -> String? {
        guard let value = headers[HeaderName.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return "" }  // present but unusable: invalid
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// A stream token from the `access_token` query argument or the `navprefs_stream` cookie.
    static func streamToken(_ head: HTTPRequestHead) -> String? {
        if let token = head.queryValue("access_token"), !token.isEmpty { return token }
        guard let cookies = head.headers[HeaderName.cookie] else { return nil }
        for cookie in cookies.split(separator: ";") {
            let pair = cookie.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == streamCookie { return String(pair[1]) }
        }
        return nil
    }
}
