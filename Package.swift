// swift-tools-version: 6.2
// NavPrefs: UserDefaults, NotificationCenter and UINavigationController semantics as an HTTP service.
// Layers (see README.md): navprefs -> NavPrefsHTTPAPI -> {NavPrefsStore, MicroHTTPServer} -> NavPrefsCore.
// C libraries come from Debian through systemLibrary targets; each is imported by exactly one Swift target.
import PackageDescription

let package = Package(
    name: "NavPrefs",
    products: [
        .executable(name: "navprefs", targets: ["navprefs"])
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
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        .target(name: "MicroHTTPServer", dependencies: ["CMicroHTTPD"]),
        .target(name: "NavPrefsJSON", dependencies: ["CJansson"]),
        .target(name: "NavPrefsCore", dependencies: ["NavPrefsJSON"]),
        .target(name: "NavPrefsStore", dependencies: ["NavPrefsCore", "NavPrefsJSON", "CSQLite", "CPostgres"]),
        .target(
            name: "NavPrefsHTTPAPI",
            dependencies: ["NavPrefsCore", "NavPrefsStore", "NavPrefsJSON", "MicroHTTPServer", "CCrypto"]
        ),
        .executableTarget(name: "navprefs", dependencies: ["NavPrefsHTTPAPI"]),

        // A blocking HTTP/1.1 client over POSIX sockets, for tests only: it sends exactly the bytes
        // a test asks for (conflicting headers, oversized bodies) and never busy-waits on a stream.
        .target(name: "HTTPTestClient", path: "Tests/HTTPTestClient"),
        .testTarget(name: "NavPrefsJSONTests", dependencies: ["NavPrefsJSON"]),
        .testTarget(name: "NavPrefsCoreTests", dependencies: ["NavPrefsCore", "NavPrefsJSON"]),
        .testTarget(name: "MicroHTTPServerTests", dependencies: ["MicroHTTPServer", "HTTPTestClient"]),
        .testTarget(name: "NavPrefsStoreTests", dependencies: ["NavPrefsStore", "NavPrefsCore", "HTTPTestClient"]),
        .testTarget(
            name: "NavPrefsHTTPAPITests",
            dependencies: ["NavPrefsHTTPAPI", "NavPrefsStore", "NavPrefsCore", "NavPrefsJSON", "MicroHTTPServer", "HTTPTestClient"],
            resources: []
        ),
        .testTarget(
            name: "NavPrefsEndToEndTests",
            dependencies: ["HTTPTestClient", "NavPrefsJSON", "NavPrefsHTTPAPI", "NavPrefsStore", "navprefs"]
        ),
    ]
)

// Shared settings for every Swift target (system libraries take none).
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
