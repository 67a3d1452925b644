import Foundation
import NavPrefsCore
import NavPrefsJSON
@testable import NavPrefsStore
import Testing
import StoreTestSupport

/// What transfer tests share: a store filled with every kind of content, and export and import
/// through lines in memory.
enum TransferFixture {
    static let header = TransferHeader(navprefsVersion: "test", store: "test", includesSecrets: true)

    /// Every kind of record: counters, values of every JSON type (a string holding NUL, numbers
    /// that must stay 1 and 1.0, objects whose members are not in byte order), a tombstone, defaults, font settings, sessions edited and one
    /// deleted, tokens, a secret, and profile names whose byte order differs from a locale's.
    static func populate(_ store: any TransactionalStore) async throws {
        let ana = profile("ana")
        _ = try await store.apply(.increment(step(5)), toCounterOf: ana, if: nil)
        _ = try await store.apply(.decrement(.one), toCounterOf: ana, if: nil)
        _ = try await store.setPreference(.string("dark"), for: try PreferenceKey("theme"), of: ana, if: nil)
        _ = try await store.setPreference(.number(0.8), for: try PreferenceKey("volume"), of: ana, if: nil)
        _ = try await store.setPreference(.integer(1), for: try PreferenceKey("one"), of: ana, if: nil)
        _ = try await store.setPreference(.number(1.0), for: try PreferenceKey("oneAsNumber"), of: ana, if: nil)
        _ = try await store.setPreference(.string("na\u{EF}ve \u{2603} \u{0}\"\\\n"), for: try PreferenceKey("text"), of: ana, if: nil)
        _ = try await store.setPreference(.array([.bool(true), .string(""), .number(1e-7), .integer(Int64.min)]), for: try PreferenceKey("list"),
                                          of: ana, if: nil)
        _ = try await store.setDefaults(["theme": .string("light"), "zeta": .integer(2), "alpha": .object(["b": .integer(1), "a": .bool(false)])], merging: false,
                                        of: ana, if: nil)
        // Keys whose byte order differs from a locale's (and PostgreSQL's ICU collation).
        for key in ["Zed", "\u{E9}b\u{E8}ne", "e\u{301}", "a b/c", "B"] {
            _ = try await store.setPreference(.string(key), for: try PreferenceKey(key), of: ana, if: nil)
        }
        _ = try await store.removePreference(try PreferenceKey("theme"), of: ana, if: nil)
        _ = try await store.setFont(try FontSettings.settingSlider(to: 2.5), of: profile("bob"), if: nil)
        for name in ["B1", "a1", "Z-9.x", "b.0", "9z"] {
            _ = try await store.apply(.increment(.one), toCounterOf: profile(name), if: nil)
        }
        let nav = profile("nav")
        let kept = try await store.createSession(NavigationSession(root: SessionStoreTests.screen("home", title: "Home")), of: nav)
        _ = try await store.updateSession(kept.state.id, of: nav, if: nil, SessionStoreTests.push(SessionStoreTests.screen("detail")))
        let gone = try await store.createSession(NavigationSession(root: SessionStoreTests.screen("other")), of: nav)
        _ = try await store.deleteSession(gone.state.id, of: nav, if: nil)
        _ = try await store.setDefaults([:], merging: false, of: profile("emptyDefaults"), if: nil)
        try await store.createToken(TokenRecord(id: "0123456789ab", hash: String(repeating: "a", count: 64), profile: nil, label: "ops",
                                                createdAt: 1_700_000_000_000))
        try await store.createToken(TokenRecord(id: "ba9876543210", hash: String(repeating: "b", count: 64), profile: ana, label: "ana's phone",
                                                createdAt: 1_700_000_000_001))
        _ = try await store.secret(named: "stream-token-key", candidate: "secret-value")
    }

    /// The store's export, line by line.
    static func export(_ store: any Store, header: TransferHeader = header, profilesPerPage: Int = 500,
                       eventsPerPage: Int = 1_000) async throws -> [String] {
        let transactional = try #require(store as? any TransactionalStore)
        let lines = Locked<[String]>([])
        let counts = try await transactional.exportContent(header, profilesPerPage: profilesPerPage, eventsPerPage: eventsPerPage) { line in
            lines.withLock { $0.append(line) }
        }
        let written = lines.withLock { $0 }
        #expect(written.count == 2 + counts.profiles + counts.preferences + counts.tombstones + counts.defaults + counts.sessions
            + counts.events + counts.tokens + counts.secrets)
        return written
    }

    /// Imports `lines` into `store`.
    @discardableResult
    static func `import`(_ lines: [String], into store: any Store, replacing: Bool = false,
                         maxBatchRows: Int = 2_000) async throws(ImportFailure) -> TransferCounts {
        guard let transactional = store as? any TransactionalStore else { throw .input("not a transactional store") }
        var importer = TransferImport(replacing: replacing, note: "test import")
        importer.maxBatchRows = maxBatchRows
        var source = Lines(lines)
        return try await importer.run(into: transactional, from: &source)
    }

    /// Lines in memory, as a file would give them.
    struct Lines: TransferLineSource {
        var remaining: ArraySlice<String>
        init(_ lines: [String]) { remaining = lines[...] }
        mutating func nextLine() throws -> [UInt8]? { remaining.popFirst().map { Array($0.utf8) } }
    }
}
