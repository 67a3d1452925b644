import Foundation
import HTTPTestClient
@testable import NavPrefsConsole
import Testing

/// The console's files and the contract over a real socket: every file under
/// Sources/NavPrefsConsole/Assets is served byte for byte from the binary with its type, ETag
/// and Content-Security-Policy, and so are openapi.yaml and openapi.json (made from it at build time).
@Suite("The console and the contract, served from the binary")
struct ConsoleAPITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let assets = root.appendingPathComponent("Sources/NavPrefsConsole/Assets")
    static let policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Every file the plugin embeds, by its path under Assets (`*.md` notes are not served).
    static func assetPaths() throws -> [String] {
        let base = assets.standardizedFileURL.path + "/"
        let walker = try #require(FileManager.default.enumerator(at: assets, includingPropertiesForKeys: [.isRegularFileKey]))
        return walker.compactMap { $0 as? URL }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true && $0.pathExtension != "md" }
            .map { String($0.standardizedFileURL.path.dropFirst(base.count)) }
            .sorted()
    }

    static let types = ["html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
                        "svg": "image/svg+xml", "txt": "text/plain; charset=utf-8", "": "text/plain; charset=utf-8"]

    @Test("every asset at /console/<path>, byte for byte, with its type, ETag and policy; the home page at /")
    func everyAsset() async throws {
        try await withApp { app in
            let paths = try Self.assetPaths()
            #expect(paths.contains("index.html") && paths.contains("vendor/swagger-ui/swagger-ui-bundle.js"))
            #expect(Set(ConsoleFiles.keys) == Set(paths.map { "console/" + $0 } + ["openapi.yaml", "openapi.json"]),
                    "the binary holds exactly the files on disk")
            for path in paths {
                let response = try await app.request("GET", "/console/" + path)
                let onDisk = try Data(contentsOf: Self.assets.appendingPathComponent(path))
                #expect(response.status == 200, "\(path)")
                #expect(Data(response.body) == onDisk, "\(path) is served as it is on disk (rebuild after editing it)")
                let ext = path.split(separator: "/").last.map { $0.contains(".") ? String($0.split(separator: ".").last ?? "") : "" } ?? ""
                #expect(response.header("Content-Type") == Self.types[ext], "\(path)")
                #expect(response.header("ETag")?.count == 18, "\(path)")
                #expect(response.header("Cache-Control") == "no-cache", "\(path)")
                #expect(response.header("Referrer-Policy") == "same-origin", "\(path)")
                let expected = path == "api.html" ? Self.policy.replacingOccurrences(of: "img-src 'self'", with: "img-src 'self' data:") : Self.policy
                #expect(response.header("Content-Security-Policy") == expected, "\(path)")
            }
            let home = try await app.request("GET", "/")
            #expect(home.status == 200)
            #expect(Data(home.body) == (try Data(contentsOf: Self.assets.appendingPathComponent("index.html"))))
            #expect(home.header("Content-Security-Policy") == Self.policy)
        }
    }

    @Test("openapi.yaml as committed, and openapi.json as built from it")
    func contract() async throws {
        try await withApp { app in
            let yaml = try await app.request("GET", "/openapi.yaml")
            #expect(yaml.status == 200)
            #expect(yaml.header("Content-Type") == "application/yaml")
            #expect(Data(yaml.body) == (try Data(contentsOf: Self.root.appendingPathComponent("openapi.yaml"))), "openapi.yaml (rebuild after editing it)")
            let json = try await app.request("GET", "/openapi.json")
            #expect(json.status == 200)
            #expect(json.header("Content-Type") == "application/json")
            #expect(json.body == ConsoleFiles.file("openapi.json")?.bytes)
            let document = try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any]
            #expect((document?["openapi"] as? String)?.hasPrefix("3.") == true, "openapi.json is not the contract as JSON")
        }
    }

    @Test("If-None-Match with the ETag answers 304 without a body; HEAD answers the head")
    func conditional() async throws {
        try await withApp { app in
            let first = try await app.request("GET", "/console/index.html")
            let etag = try #require(first.header("ETag"))
            for tag in [etag, "W/" + etag, "\"other\", " + etag, "*"] {
                let again = try await app.request("GET", "/console/index.html", headers: [("If-None-Match", tag)])
                #expect(again.status == 304, "\(tag)")
                #expect(again.body.isEmpty && again.header("ETag") == etag)
            }
            #expect(try await app.request("GET", "/", headers: [("If-None-Match", "\"other\"")]).status == 200)
            let head = try await app.request("HEAD", "/openapi.json")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("Content-Length") == ConsoleFiles.file("openapi.json").map { String($0.bytes.count) })
        }
    }

    @Test("anything else is a 404 problem: no file outside the embedded ones, whatever the path says")
    func notFound() async throws {
        try await withApp { app in
            for path in ["/console/missing.js", "/console/..%2Fopenapi.yaml", "/console/vendor/swagger-ui/..%2F..%2Findex.html",
                         "/console/vendor/swagger-ui/index.html", "/console/openapi.yaml", "/console/%2e%2e", "/console/vendor",
                         "/console/VENDORED.md", "/console/vendor/swagger-ui/VENDORED.md"] {
                let response = try await app.request("GET", path)
                #expect(response.status == 404, "\(path): \(response.status)")
                #expect((try? response.problemType()) == problem("not-found"), "\(path)")
            }
            let post = try await app.request("POST", "/", headers: [("Content-Type", "application/json")], body: "{}")
            #expect(post.status == 405 && post.header("Allow") == "GET, HEAD")
        }
    }

    @Test("open with tokens in use: the console must load to ask for one, and holds no data")
    func openWithTokens() async throws {
        try await withApp { app async throws in
            _ = try await app.makeToken()
            #expect(try await app.request("GET", "/v1/profiles/default/counter").status == 401)
            for path in ["/", "/console/index.html", "/console/vendor/swagger-ui/LICENSE", "/openapi.yaml", "/openapi.json"] {
                #expect(try await app.request("GET", path).status == 200, "\(path)")
            }
        }
    }

    @Test("base64 as the embedder writes it decodes to the bytes, at every length")
    func base64() {
        var bytes: [UInt8] = []
        for length in 0..<70 {
            let text = Data(bytes).base64EncodedString()
            let decoded = text.utf8CString.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: UInt8.self) { Base64.decode(UnsafeBufferPointer(rebasing: $0.dropLast())) }
            }
            #expect(decoded == bytes, "length \(length)")
            bytes.append(UInt8(truncatingIfNeeded: length &* 37 &+ 11))
        }
    }
}
