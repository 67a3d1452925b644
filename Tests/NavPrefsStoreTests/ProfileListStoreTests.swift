import Foundation
import NavPrefsCore
import NavPrefsStore
import Testing
import StoreTestSupport

/// The list of profiles through the ``Store`` protocol, against every store: byte order of
/// names whatever the database's collation, pages that neither overlap nor skip.
@Suite("Store contract: the list of profiles")
struct ProfileListStoreTests {
    /// Names whose byte order differs from a language collation's (case, `-`, `.`, `_`, digits).
    static let names = ["b", "A", "a-1", "a", "a.b", "Z9", "0", "a_b", "B"]

    @Test("a fresh store lists only default, never written", arguments: StoreKind.testCases)
    func fresh(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let page = try await store.profiles(after: nil, limit: 10)
            #expect(page.profiles.map(\.name) == [.default])
            #expect(page.profiles.first?.latestEventID == 0)
            #expect(page.next == nil)
        }
    }

    @Test("every profile once, in byte order, page after page", arguments: StoreKind.testCases)
    func pages(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let before = Int64(Date().timeIntervalSince1970 * 1000) - 60_000
            for (index, name) in Self.names.enumerated() {
                for _ in 0...index { _ = try await store.apply(.increment(.one), toCounterOf: profile(name), if: nil) }
            }
            let expected = (Self.names + ["default"]).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }

            let all = try await store.profiles(after: nil, limit: 100)
            #expect(all.profiles.map(\.name.rawValue) == expected)
            #expect(all.next == nil)
            for summary in all.profiles where summary.name != .default {
                let index = try #require(Self.names.firstIndex(of: summary.name.rawValue))
                #expect(summary.latestEventID == Int64(index + 1), "one event per write of \(summary.name)")
                #expect(summary.createdAt > before)
            }

            var listed: [String] = []
            var after: ProfileName?
            var pages = 0
            repeat {
                let page = try await store.profiles(after: after, limit: 3)
                listed += page.profiles.map(\.name.rawValue)
                #expect(page.profiles.count == 3 || page.next == nil, "only the last page may be short")
                #expect(page.next == nil || page.next == page.profiles.last?.name)
                after = page.next
                pages += 1
            } while after != nil && pages < 10
            #expect(listed == expected)
            #expect(pages == (expected.count + 2) / 3)
        }
    }

    @Test("after a name that is not a profile, the list goes on from where it would be", arguments: StoreKind.testCases)
    func afterAbsentName(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            for name in ["ana", "bob", "cid"] { _ = try await store.apply(.reset, toCounterOf: profile(name), if: nil) }
            let page = try await store.profiles(after: profile("b"), limit: 2)
            #expect(page.profiles.map(\.name.rawValue) == ["bob", "cid"])
            #expect(page.next == profile("cid"))
            let last = try await store.profiles(after: profile("cid"), limit: 2)
            #expect(last.profiles.map(\.name.rawValue) == ["default"])
            #expect(last.next == nil)
            #expect(try await store.profiles(after: profile("zzz"), limit: 2) == ProfilePage(profiles: [], next: nil))
        }
    }
}
