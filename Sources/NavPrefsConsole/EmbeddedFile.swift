import Synchronization

/// One file compiled into the binary: its content type, its ETag and its bytes, kept as base64
/// constant data and decoded the first time they are asked for, so a server that never serves
/// the API reference page never spends memory on its 1.7 MB script.
final class EmbeddedFile: Sendable {
    let contentType: String
    /// A strong entity tag, quoted: changes whenever the bytes do.
    let etag: String
    let size: Int
    private let base64: StaticString
    private let decoded = Mutex<[UInt8]?>(nil)

    init(contentType: String, etag: String, size: Int, base64: StaticString) {
        self.contentType = contentType
        self.etag = etag
        self.size = size
        self.base64 = base64
    }

    /// The file's bytes (the array is shared, not copied, between requests).
    var bytes: [UInt8] {
        decoded.withLock { cached in
            if let cached { return cached }
            let bytes = Base64.decode(base64.description.utf8, expectedSize: size)
            cached = bytes
            return bytes
        }
    }
}
