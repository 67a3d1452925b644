import Foundation
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore
import Testing
import StoreTestSupport

/// The store's half of RFC 7396 (`PATCH .../preferences`, `PATCH .../defaults`): each update is
/// merged in the write's transaction, on every kind of store.
@Suite("Store contract: merge patches (RFC 7396)")
struct MergePatchStoreTests {
    static func key(_ text: String) -> PreferenceKey { (try? PreferenceKey(text)) ?? WellKnownKey.counter }
    static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

    @Test("RFC 7396 §2: an object update merges into the stored value at every depth; one event per key", arguments: StoreKind.testCases)
    func nestedMerge(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("merge")
            _ = try await store.setPreference(try Self.json(#"{"s":{"w":240,"p":true,"side":"left"},"z":1}"#), for: Self.key("layout"), of: p, if: nil)
            let change = try await store.updatePreferences([
                PreferenceUpdate(key: Self.key("layout"), value: try Self.json(#"{"s":{"w":300,"p":null}}"#)),
                PreferenceUpdate(key: Self.key("n"), value: .integer(1)),
            ], of: p, if: nil)
            #expect(change.eventIDs.count == 2)
            #expect(try await store.preference(Self.key("layout"), of: p).value == (try Self.json(#"{"s":{"w":300,"side":"left"},"z":1}"#)))
        }
    }

    @Test("The merged value is checked against the size limit in the transaction; a refusal changes nothing", arguments: StoreKind.testCases)
    func mergedSizeLimit(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("size")
            let layout = Self.key("layout")
            _ = try await store.setPreference(.object(["a": .string(String(repeating: "x", count: 60))]), for: layout, of: p, if: nil)
            let grow = try StoreWrite<PreferencesChange>.updatePreferences(
                [PreferenceUpdate(key: layout, value: .object(["b": .string(String(repeating: "y", count: 60))]))],
                of: p, if: nil, maxValueBytes: 100)
            await #expect(throws: StoreError.valueTooLarge(key: layout, bytes: 135, limit: 100)) { try await store.perform(grow) }
            #expect(try await store.preference(layout, of: p).value == .object(["a": .string(String(repeating: "x", count: 60))]))
        }
    }

    @Test("register(defaults:) merging: an object merges into the registered default; PUT replaces it whole", arguments: StoreKind.testCases)
    func defaultsMerge(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("defaults")
            _ = try await store.setDefaults(["k": try Self.json(#"{"a":{"b":"c"}}"#)], merging: false, of: p, if: nil)
            let merged = try await store.setDefaults(["k": try Self.json(#"{"a":{"b":"d","c":null}}"#)], merging: true, of: p, if: nil)
            #expect(merged.state.values["k"] == (try Self.json(#"{"a":{"b":"d"}}"#)), "RFC 7396 Appendix A.7")
            let replaced = try await store.setDefaults(["k": try Self.json(#"{"x":1}"#)], merging: false, of: p, if: nil)
            #expect(replaced.state.values["k"] == (try Self.json(#"{"x":1}"#)))
        }
    }
}
