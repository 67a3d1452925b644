import Foundation
import NavPrefsCore
@testable import NavPrefsStore
import Testing
import StoreTestSupport

/// The event log's bound in bytes (issue 32, item 2): a write whose events cross a sixteenth of
/// ``StoreLimits/maxEventLogBytes`` deletes its profile's oldest events down to fifteen
/// sixteenths, so a profile's log never holds more than the bound (the newest event always
/// stays), and what the profile listing reports is what is kept.
@Suite("Store contract: the event log's bound in bytes")
struct EventLogBytesStoreTests {
    /// The bytes of the events `profile` keeps, as logged, and their ids.
    static func kept(_ store: any Store, _ profile: ProfileName) async throws -> (bytes: Int, ids: [Int64]) {
        let events = try await store.events(of: profile, after: 0, limit: 100_000)
        return (events.reduce(0) { $0 + $1.data.utf8.count }, events.map(\.id))
    }

    /// What the admin listing says `profile` holds.
    static func listed(_ store: any Store, _ profile: ProfileName) async throws -> ProfileSummary? {
        try await store.profiles(after: nil, limit: 1_000).profiles.first { $0.name == profile }
    }

    @Test("every write keeps the log within its bound: the newest events whose bytes fit, and the listing counts them",
          arguments: StoreKind.testCases)
    func boundKeptByEachWrite(kind: StoreKind) async throws {
        var settings = StoreSettings()
        settings.maxEventLogBytes = 2_000
        try await withStore(kind, settings) { store, _ in
            let p = profile("bytes")
            for index in 1...40 {
                _ = try await store.setPreference(.string(String(repeating: "x", count: 100 + index * 7)),
                                                  for: PreferenceStoreTests.key("k\(index % 5)"), of: p, if: nil)
                let (bytes, ids) = try await Self.kept(store, p)
                #expect(bytes <= 2_000, "after write \(index): \(bytes) bytes kept")
                #expect(ids == Array((ids.first ?? 1)...Int64(index)), "the newest, with no gap: \(ids)")
                // One more event would not have fitted: the oldest deleted was needed to stay within the bound.
                if let first = ids.first, first > 1 {
                    let dropped = try await store.eventLogBounds(of: p)
                    #expect(dropped.earliest == first)
                }
                let listed = try #require(try await Self.listed(store, p))
                #expect(listed.eventLogBytes == bytes, "the listing counts what is kept")
            }
            let (bytes, ids) = try await Self.kept(store, p)
            #expect(ids.count >= 4 && ids.count < 40, "\(ids.count) events kept")
            #expect(bytes > 2_000 - 450, "no more was deleted than needed: \(bytes)")
            // Counter steps go through the same bound.
            for _ in 0..<30 { _ = try await store.apply(.increment(.one), toCounterOf: p, if: nil) }
            #expect(try await Self.kept(store, p).bytes <= 2_000)
            // An event larger than the whole bound stays alone: the newest is never deleted.
            _ = try await store.setPreference(.string(String(repeating: "y", count: 3_000)), for: PreferenceStoreTests.key("big"), of: p, if: nil)
            let alone = try await Self.kept(store, p)
            #expect(alone.ids == [71], "\(alone.ids)")
            #expect(try #require(try await Self.listed(store, p)).eventLogBytes == alone.bytes)
            // Another profile's log is its own.
            _ = try await store.apply(.increment(.one), toCounterOf: profile("other"), if: nil)
            #expect(try await Self.kept(store, profile("other")).ids == [1])
        }
    }

    @Test("storageBytes is what the quota counts plus the event log; the quota itself counts no events", arguments: StoreKind.testCases)
    func storageCountsTheLog(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("truth")
            _ = try await store.setPreference(.string(String(repeating: "v", count: 1_000)), for: PreferenceStoreTests.key("a"), of: p, if: nil)
            for _ in 0..<10 { _ = try await store.apply(.increment(.one), toCounterOf: p, if: nil) }
            let listed = try #require(try await Self.listed(store, p))
            let log = try await Self.kept(store, p).bytes
            #expect(listed.eventLogBytes == log)
            let quotaCounted = listed.storageBytes - listed.eventLogBytes
            #expect(quotaCounted >= 1_000 && quotaCounted < 1_100, "key and values: \(quotaCounted)")
            let largest = try await store.largestProfiles(limit: 10).first { $0.profile == p }
            #expect(largest?.bytes == listed.storageBytes && largest?.eventLogBytes == log)
        }
    }

    @Test("an import counts each event's place in its profile's log, so the bound holds on the imported store", arguments: StoreKind.testCases)
    func importCounts(kind: StoreKind) async throws {
        try await withStore(kind) { source, _ in
            let p = profile("moved")
            for index in 0..<30 {
                _ = try await source.setPreference(.string(String(repeating: "z", count: 200)), for: PreferenceStoreTests.key("k\(index)"), of: p, if: nil)
            }
            let lines = try await TransferFixture.export(source)
            var settings = StoreSettings()
            settings.maxEventLogBytes = 3_000
            try await withStore(kind, settings) { target, _ in
                try await TransferFixture.import(lines, into: target, maxBatchRows: 7)
                let imported = try await Self.kept(target, p)
                #expect(imported.ids.count == 30)
                #expect(try #require(try await Self.listed(target, p)).eventLogBytes == imported.bytes)
                // Writes trim once they cross a sixteenth of the bound (187 bytes): two counter steps do.
                for _ in 0..<2 { _ = try await target.apply(.increment(.one), toCounterOf: p, if: nil) }
                let trimmed = try await Self.kept(target, p)
                #expect(trimmed.bytes <= 3_000 && trimmed.bytes > 3_000 - 450, "\(trimmed.bytes)")
                #expect(trimmed.ids.last == 32)
            }
        }
    }
}
