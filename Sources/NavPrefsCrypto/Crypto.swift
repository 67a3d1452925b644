import CCrypto

/// The few primitives authentication needs, from OpenSSL's libcrypto: nothing hand-written.
/// All unsafe pointer work of the service's cryptography stays in this file.
public enum Crypto {
    /// `count` bytes from OpenSSL's CSPRNG; `nil` only if it cannot be seeded (then no token is made).
    public static func randomBytes(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        return status == 1 ? bytes : nil
    }

    /// SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex characters.
    public static func sha256Hex(_ text: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return hex(digest)
    }

    /// HMAC-SHA-256 of `message` under `key`, as 64 lowercase hex characters.
    public static func hmacSHA256Hex(key: String, _ message: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let keyBytes = Array(key.utf8), messageBytes = Array(message.utf8)
        keyBytes.withUnsafeBufferPointer { keyBuffer in
            messageBytes.withUnsafeBufferPointer { messageBuffer in
                digest.withUnsafeMutableBufferPointer { output in
                    _ = HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count),
                             messageBuffer.baseAddress, messageBuffer.count, output.baseAddress, &length)
                }
            }
        }
        return hex(Array(digest.prefix(Int(length))))
    }

    /// Whether `a` and `b` are equal, in time that depends on their length only (CRYPTO_memcmp),
    /// so that comparing a presented hash with a stored one reveals nothing through timing.
    public static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        guard left.count == right.count, !left.isEmpty else { return false }
        return left.withUnsafeBytes { l in right.withUnsafeBytes { r in CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) == 0 } }
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
