import Foundation
import NavPrefsCore
@testable import NavPrefsStore
import Testing
import StoreTestSupport

/// The per-profile quota refuses only writes that grow a profile (issue 32, item 3): a full
/// profile can always shrink, with or without an idempotency key, and a keyed write's record
/// (a bounded summary) never turns a removal into a refusal.
@Suite("Store contract: the quota never blocks shrinking")
struct QuotaStoreTests {
    static let value = JSONValue.string(String(repeating: "x", count: 990))

    /// The answer a keyed preferences write records: a large one (what a whole profile's
    /// values would take), to show that the record never turns a removal into a refusal.
    static let snapshotAnswer: @Sendable (PreferencesChange) -> RecordedAnswer = { change in
        RecordedAnswer(status: 200, headers: [], body: String(repeating: "a", count: 18_000) + "\(change.version)")
    }

    @Test("at 19 of 20 KB, keyed and unkeyed removals go through; a keyed growing write is refused; a smaller value is accepted",
          arguments: StoreKind.testCases)
    func fullProfileShrinks(kind: StoreKind) async throws {
        var settings = StoreSettings()
        settings.profileQuotaBytes = 20_000
        try await withStore(kind, settings) { store, _ in
            let p = profile("full")
            _ = try await store.setDefaults(["d": .string("x")], merging: false, of: p, if: nil)
            for index in 0..<19 {
                _ = try await store.setPreference(Self.value, for: PreferenceStoreTests.key("k\(index)"), of: p, if: nil)
            }
            // 19 of 20 KB: the keyed removal's whole answer (18 KB) would have filled it (409 before).
            let removal = try StoreWrite.updatePreferences([PreferenceUpdate(key: PreferenceStoreTests.key("k0"), value: nil)], of: p, if: nil)
            let request = IdempotentRequest(profile: p, key: "rm-1", fingerprint: "f")
            guard case .performed = try await store.perform(removal, remembering: request, answer: Self.snapshotAnswer) else {
                Issue.record("the keyed removal was not performed")
                return
            }
            #expect(try await store.preference(PreferenceStoreTests.key("k0"), of: p).stored == nil)
            let defaultsRemoval = try StoreWrite.setDefaults(["d": .null], merging: true, of: p, if: nil)
            let answer: @Sendable (DefaultsChange) -> RecordedAnswer = { RecordedAnswer(status: 200, headers: [], body: JSONValue.object($0.state.values).jsonText) }
            guard case .performed = try await store.perform(defaultsRemoval, remembering: IdempotentRequest(profile: p, key: "rm-2", fingerprint: "f"),
                                                            answer: answer) else {
                Issue.record("the keyed defaults removal was not performed")
                return
            }
            _ = try await store.removePreference(PreferenceStoreTests.key("k1"), of: p, if: nil)
            // Fill it again to the brim, then: a smaller value is accepted, a larger one refused, keyed or not.
            for index in 0..<3 {
                _ = try? await store.setPreference(Self.value, for: PreferenceStoreTests.key("f\(index)"), of: p, if: nil)
            }
            _ = try await store.setPreference(.string("small"), for: PreferenceStoreTests.key("k2"), of: p, if: nil)
            let grow = try StoreWrite.updatePreferences([PreferenceUpdate(key: PreferenceStoreTests.key("big"),
                                                                          value: .string(String(repeating: "y", count: 5_000)))], of: p, if: nil)
            await #expect(throws: StoreError.self) {
                try await store.perform(grow, remembering: IdempotentRequest(profile: p, key: "grow", fingerprint: "f"), answer: Self.snapshotAnswer)
            }
            await #expect(throws: StoreError.self) { try await store.perform(grow) }
            #expect(try await store.preference(PreferenceStoreTests.key("big"), of: p).stored == nil)
        }
    }
}
