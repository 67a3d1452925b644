// swift-tools-version: 6.2
// The floor of a navprefs write (issue 34): a small server over the same libmicrohttpd and SQLite,
// with navprefs' schema and its exact increment statements, that commits once per event-loop turn.
// A package of its own, so that the product's Package.swift and the navprefs binary never see it.
// Build: swift build -c release (in this directory); bench/floor/run.sh does it.
import PackageDescription

let package = Package(
    name: "navprefs-floor",
    targets: [
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(name: "floor", dependencies: ["CMicroHTTPD", "CSQLite"]),
    ]
)
