/// The files of the web console and the contract, as compiled into the binary by the
/// EmbedConsoleAssets build plugin (its generated source fills ``embedded``): `console/<path>`
/// for each file under `Sources/NavPrefsConsole/Assets`, and `openapi.yaml`, `openapi.json`.
/// Knows nothing of HTTP: NavPrefsHTTPAPI's `ConsoleRoutes` serves them.
public enum ConsoleFiles {
    /// A file as served: its bytes, content type and strong ETag.
    public struct File: Sendable {
        public let contentType: String
        /// Quoted, as the `ETag` header carries it.
        public let etag: String
        public let bytes: [UInt8]
    }

    /// The file stored under `key`, or `nil` when there is none (an exact match: no path is
    /// resolved, so `..` or an encoded slash cannot reach anything else).
    public static func file(_ key: String) -> File? {
        guard let file = embedded[key] else { return nil }
        return File(contentType: file.contentType, etag: file.etag, bytes: file.bytes)
    }

    /// The ETag of `key` without decoding its bytes (a conditional request that matches needs none).
    public static func etag(_ key: String) -> String? { embedded[key]?.etag }

    /// The size of `key`'s bytes without decoding them: a 304 repeats it as its `Content-Length`.
    public static func size(_ key: String) -> Int? { embedded[key]?.size }

    /// Every key, sorted.
    public static var keys: [String] { embedded.keys.sorted() }
}
