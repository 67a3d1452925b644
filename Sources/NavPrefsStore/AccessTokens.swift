public import NavPrefsCore

/// An access token as stored: never the token itself, only its SHA-256 (hex), under a public id
/// that the token carries, so a request's token is found by id and then compared by hash.
public struct TokenRecord: Sendable, Equatable {
    /// Public and unique: 12 hex characters, part of the token (`npt_<id>_<secret>`).
    public let id: String
    /// SHA-256 of the whole token, 64 lowercase hex characters.
    public let hash: String
    /// The one profile the token may act on; `nil` for an admin token (every profile, the admin API).
    public let profile: ProfileName?
    /// Free text from its creator, to tell tokens apart in a list.
    public let label: String
    /// Milliseconds since 1970.
    public let createdAt: Int64

    public init(id: String, hash: String, profile: ProfileName?, label: String, createdAt: Int64) {
        self.id = id
        self.hash = hash
        self.profile = profile
        self.label = label
        self.createdAt = createdAt
    }
}

/// What the stores keep for authentication: the tokens, and named secrets shared by every
/// instance on the database (the key that signs short-lived stream tokens). Not profile data:
/// no events, no versions.
public protocol TokenStore: Sendable {
    func createToken(_ token: TokenRecord) async throws(StoreError)
    /// Every token, oldest first.
    func tokens() async throws(StoreError) -> [TokenRecord]
    func token(id: String) async throws(StoreError) -> TokenRecord?
    /// Whether a token was there to remove.
    func revokeToken(id: String) async throws(StoreError) -> Bool
    /// The secret stored under `name`; `candidate` is stored first when there is none, so every
    /// instance ends up with the value the first one wrote.
    func secret(named name: String, candidate: String) async throws(StoreError) -> String
}
