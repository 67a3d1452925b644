// swift-tools-version: 6.2
// NavPrefs: UserDefaults, NotificationCenter and UINavigationController semantics as an HTTP service.
// Layers (docs/how-it-is-built.md): navprefs -> NavPrefsApp -> {NavPrefsHTTPAPI, NavPrefsSQLite, NavPrefsPostgres};
// NavPrefsHTTPAPI -> {NavPrefsStore, MicroHTTPServer, NavPrefsCrypto}; stores -> NavPrefsStore -> NavPrefsJSON -> NavPrefsCore.
// C libraries come from Debian through systemLibrary targets; each is imported by exactly one Swift target,
// and NavPrefsCore imports none.
import PackageDescription

/// The targets that wrap no C library: every unsafe construct in them must be marked `unsafe`
/// or the build fails (SE-0458), so unsafe pointer code stays in the thin wrappers over C
/// (MicroHTTPServer, NavPrefsSQLite, NavPrefsPostgres, NavPrefsJSON, NavPrefsCrypto, the client's
/// sockets). What is marked outside them is a call into the C library itself (the clock,
/// `write(2)` of the log, `strerror`) or JSONWriter's bounded reads of a string's bytes, each
/// with why.
let memorySafe: [SwiftSetting] = [.strictMemorySafety(), .treatWarning("StrictMemorySafety", as: .error)]

let package = Package(
    name: "NavPrefs",
    // For the NavPrefsClient library on Apple platforms (async/await, Duration, URLSession's
    // async API); the server builds on Linux only.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .executable(name: "navprefs", targets: ["navprefs"]),
        .library(name: "NavPrefsClient", targets: ["NavPrefsClient"]),
        .executable(name: "navprefs-client", targets: ["navprefs-client"]),
    ],
    targets: [
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // OpenSSL for the client's own HTTP/1.1 reader on Linux (https), apart from CCrypto: each
        // C module has exactly one importing target, and the client shares nothing with the server.
        .systemLibrary(
            name: "CClientTLS",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        // libyaml for the console's build tool only (openapi.json from openapi.yaml at build time);
        // the server binary does not link it.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // The layers (docs/how-it-is-built.md draws them). Every C module is a dependency of exactly one Swift
        // target, so a store change cannot reach into HTTP and the HTTP layer cannot name a store kind.
        .target(name: "MicroHTTPServer", dependencies: ["CMicroHTTPD"]),
        // The in-memory transport: tests drive a handler through the socket server's request
        // phases and step executor without a socket. A library of its own so that the server
        // binary does not link it (scripts/check-layers.py holds that).
        .target(name: "MicroHTTPServerTesting", dependencies: ["MicroHTTPServer"]),
        .target(name: "NavPrefsCore", swiftSettings: memorySafe),
        .target(name: "NavPrefsJSON", dependencies: ["NavPrefsCore", "CJansson"]),
        .target(name: "NavPrefsCrypto", dependencies: ["CCrypto"]),
        .target(name: "NavPrefsStore", dependencies: ["NavPrefsCore", "NavPrefsJSON"], swiftSettings: memorySafe),
        .target(name: "NavPrefsSQLite", dependencies: ["NavPrefsStore", "NavPrefsCore", "NavPrefsJSON", "CSQLite"]),
        .target(name: "NavPrefsPostgres", dependencies: ["NavPrefsStore", "NavPrefsCore", "NavPrefsJSON", "CPostgres"]),
        // The web console (docs/console.md): the files under Sources/NavPrefsConsole/Assets and
        // the contract (openapi.yaml, and openapi.json made from it), compiled into the binary at build time by the
        // EmbedConsoleAssets plugin and its tool, so nothing ships beside the binary.
        .executableTarget(name: "ConsoleAssetEmbedder", dependencies: ["CYAML"]),
        .plugin(name: "EmbedConsoleAssets", capability: .buildTool(), dependencies: ["ConsoleAssetEmbedder"]),
        .target(name: "NavPrefsConsole", exclude: ["Assets"], swiftSettings: memorySafe, plugins: ["EmbedConsoleAssets"]),
        .target(
            name: "NavPrefsHTTPAPI",
            dependencies: ["NavPrefsCore", "NavPrefsJSON", "NavPrefsStore", "MicroHTTPServer", "NavPrefsCrypto", "NavPrefsConsole"],
            swiftSettings: memorySafe
        ),
        .target(
            name: "NavPrefsApp",
            dependencies: ["NavPrefsHTTPAPI", "NavPrefsStore", "NavPrefsSQLite", "NavPrefsPostgres", "NavPrefsCore", "MicroHTTPServer"],
            swiftSettings: memorySafe
        ),
        .executableTarget(name: "navprefs", dependencies: ["NavPrefsApp"]),

        // The Swift client: Foundation and Observation, none of the server's targets or C modules,
        // so the same source builds for Apple platforms. On Linux it reads HTTP itself, over
        // sockets and OpenSSL (CClientTLS), because swift-corelibs-foundation's URLSession keeps a
        // core busy while an event stream idles (README, "Swift client"; docs/swift-client.md).
        .target(name: "NavPrefsClient", dependencies: [.target(name: "CClientTLS", condition: .when(platforms: [.linux]))]),
        // Its command-line example: get, set, watch. A second executable, so that the server
        // binary links no URLSession (libcurl on Linux) and the client none of the server.
        .executableTarget(name: "navprefs-client", dependencies: ["NavPrefsClient"]),

        // A blocking HTTP/1.1 client over POSIX sockets, for tests only: it sends exactly the bytes
        // a test asks for (conflicting headers, oversized bodies) and never busy-waits on a stream.
        .target(name: "HTTPTestClient", path: "Tests/HTTPTestClient"),
        // The store's operations by name (`store.setPreference(…)`), built on `perform`, for tests
        // only: the service runs every operation as a value, so `Store` itself stays small.
        .target(name: "StoreTestSupport", dependencies: ["NavPrefsStore", "NavPrefsCore"], path: "Tests/StoreTestSupport"),
        .testTarget(name: "NavPrefsJSONTests", dependencies: ["NavPrefsJSON", "NavPrefsCore"]),
        .testTarget(name: "NavPrefsCoreTests", dependencies: ["NavPrefsCore", "NavPrefsJSON"]),
        .testTarget(name: "MicroHTTPServerTests", dependencies: ["MicroHTTPServer", "MicroHTTPServerTesting", "HTTPTestClient"]),
        .testTarget(
            name: "NavPrefsStoreTests",
            dependencies: [
                "NavPrefsStore", "NavPrefsSQLite", "NavPrefsPostgres", "NavPrefsCore", "NavPrefsJSON", "HTTPTestClient", "StoreTestSupport",
            ]
        ),
        .testTarget(
            name: "NavPrefsHTTPAPITests",
            dependencies: [
                "NavPrefsApp", "NavPrefsHTTPAPI", "NavPrefsStore", "NavPrefsSQLite", "NavPrefsCore", "NavPrefsJSON",
                "NavPrefsCrypto", "MicroHTTPServer", "MicroHTTPServerTesting", "HTTPTestClient", "NavPrefsConsole", "StoreTestSupport",
            ],
            resources: []
        ),
        // The client against the real server binary (and the command-line example), over a
        // proxy the tests can break.
        .testTarget(name: "NavPrefsClientTests", dependencies: ["NavPrefsClient", "HTTPTestClient", "navprefs", "navprefs-client"]),
        .testTarget(
            name: "NavPrefsEndToEndTests",
            dependencies: ["HTTPTestClient", "NavPrefsCore", "NavPrefsJSON", "NavPrefsApp", "NavPrefsHTTPAPI", "NavPrefsStore", "NavPrefsSQLite", "navprefs"]
        ),
    ]
)

// Shared settings for every Swift target (system libraries and plugins take none).
for target in package.targets where target.type != .system && target.type != .plugin {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}

// The server's release build optimizes across its modules: a request crosses eight of them
// (transport, API, store, SQLite, JSON, core), and without this each call into another module
// is an opaque call with its generic code unspecialized. Measured beside the same source built
// without it (bench/README.md, 2026-12-05): a GET 5-8 % less server CPU, a durable write 2-5 %.
// Not on the client library and its example, which apps take as a dependency and which this
// leaves free of unsafe flags; debug builds (the tests') are left as they are.
let serverTargets: Set<String> = [
    "MicroHTTPServer", "NavPrefsCore", "NavPrefsJSON", "NavPrefsCrypto", "NavPrefsStore", "NavPrefsSQLite", "NavPrefsPostgres",
    "NavPrefsConsole", "NavPrefsHTTPAPI", "NavPrefsApp", "navprefs",
]
for target in package.targets where serverTargets.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]
}

// scripts/sanitizers.sh builds with NAVPREFS_SANITIZED_SUITES=1 (its default suites): no
// sanitized suite runs the client library, its tests, the end-to-end suite or the pure core's
// suite, so the AddressSanitizer and ThreadSanitizer builds leave them out, a quarter of the code
// each build would otherwise compile.
if Context.environment["NAVPREFS_SANITIZED_SUITES"] == "1" {
    let unsanitized: Set<String> = [
        "NavPrefsClient", "CClientTLS", "navprefs-client", "NavPrefsClientTests", "NavPrefsEndToEndTests", "NavPrefsCoreTests",
    ]
    package.targets.removeAll { unsanitized.contains($0.name) }
    package.products.removeAll { unsanitized.contains($0.name) }
}
