public import NavPrefsCore
import Foundation
import NavPrefsCrypto
public import NavPrefsStore

/// Bearer tokens: `npt_<id>_<secret>`, 12 hex characters of public id and 64 of secret (32
/// random bytes). The store keeps the id and the SHA-256 of the whole token; the token itself is
/// shown once, when it is made.
public enum AccessToken {
    static let prefix = "npt_"

    /// A new token for `profile` (`nil`: admin) and the record to store for it.
    public static func make(profile: ProfileName?, label: String, now: Int64) -> (token: String, record: TokenRecord)? {
        guard let idBytes = Crypto.randomBytes(6), let secretBytes = Crypto.randomBytes(32) else { return nil }
        let id = Crypto.hex(idBytes)
        let token = prefix + id + "_" + Crypto.hex(secretBytes)
        return (token, TokenRecord(id: id, hash: Crypto.sha256Hex(token), profile: profile, label: label, createdAt: now))
    }

    /// The longest label, in code points.
    public static let maxLabel = 200

    /// At most ``maxLabel`` code points (as every length limit of the service counts), none a
    /// control character: a label is shown in lists and terminals.
    public static func isValidLabel(_ text: String) -> Bool {
        text.unicodeScalars.count <= maxLabel && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// RFC 3339 in UTC with milliseconds, like the log's timestamps (``Timestamp``).
    public static func timestamp(milliseconds: Int64) -> String {
        Timestamp.rfc3339(milliseconds: milliseconds)
    }

    /// Whether `text` has the shape of a token id: 12 lowercase hex characters.
    static func isWellFormedID(_ text: Substring) -> Bool {
        text.utf8.count == 12 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// The id a well-formed token carries, or `nil` for anything else (then no lookup is made).
    static func id(of token: String) -> String? {
        let bytes = Array(token.utf8)
        // "npt_" + 12 hex + "_" + 64 hex
        guard bytes.count == 4 + 12 + 1 + 64, token.hasPrefix(prefix), bytes[16] == UInt8(ascii: "_") else { return nil }
        let isHex = { (byte: UInt8) in (byte >= 48 && byte <= 57) || (byte >= 97 && byte <= 102) }
        guard bytes[4..<16].allSatisfy(isHex), bytes[17...].allSatisfy(isHex) else { return nil }
        return String(decoding: bytes[4..<16], as: UTF8.self)
    }

    /// Whether `token` is the one `record` was made for (constant-time on the hashes).
    static func matches(_ token: String, _ record: TokenRecord) -> Bool {
        Crypto.constantTimeEqual(Crypto.sha256Hex(token), record.hash)
    }
}

/// Short-lived tokens for event streams, which browsers' EventSource opens without headers:
/// `nps_<expiry>_<profile hex>_<issuer>_<hmac>`, signed with a key all instances share, valid for
/// one profile's events until `expiry` (seconds since 1970). `issuer` is the id of the access
/// token that asked for it (`open` when none was needed), so revoking that token revokes the
/// stream token too, and the streams it opened.
enum StreamToken {
    static let prefix = "nps_"
    static let lifetimeSeconds: Int64 = 900
    /// Clocks of instances may differ this much: an expiry further ahead than the lifetime plus
    /// this was not made by any instance.
    static let clockSkewSeconds: Int64 = 60
    /// The issuer of a token made while no token was needed.
    static let openIssuer = "open"

    /// What a valid stream token grants.
    struct Grant: Equatable {
        let profile: ProfileName
        /// The access token's id, or ``openIssuer``.
        let issuer: String
        let expiry: Int64
    }

    static func make(profile: ProfileName, issuer: String?, expiry: Int64, key: String) -> String {
        let body = "\(expiry)_" + Crypto.hex(Array(profile.rawValue.utf8)) + "_" + (issuer ?? openIssuer)
        return prefix + body + "_" + Crypto.hmacSHA256Hex(key: key, body)
    }

    /// What `token` grants, if its signature holds and its expiry lies between `now` and the
    /// longest lifetime any instance gives.
    static func grant(of token: String, key: String, now: Int64) -> Grant? {
        guard token.hasPrefix(prefix), token.utf8.count <= 700 else { return nil }
        let parts = token.dropFirst(prefix.count).split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 4, let expiry = Int64(parts[0]), expiry >= now, expiry <= now + lifetimeSeconds + clockSkewSeconds,
              parts[1].count % 2 == 0, parts[1].count <= 512,
              parts[2] == Substring(openIssuer) || AccessToken.isWellFormedID(parts[2])
        else { return nil }
        let body = "\(parts[0])_\(parts[1])_\(parts[2])"
        guard Crypto.constantTimeEqual(Crypto.hmacSHA256Hex(key: key, body), String(parts[3])) else { return nil }
        var bytes: [UInt8] = []
        var index = parts[1].startIndex
        while index < parts[1].endIndex {
            let next = parts[1].index(index, offsetBy: 2)
            guard let byte = UInt8(parts[1][index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        guard let profile = try? ProfileName(String(decoding: bytes, as: UTF8.self)) else { return nil }
        return Grant(profile: profile, issuer: String(parts[2]), expiry: expiry)
    }
}
