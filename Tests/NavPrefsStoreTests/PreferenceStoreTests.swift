import Foundation
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore
import Testing
import StoreTestSupport

@Suite("Store contract: preferences, defaults, font settings")
struct PreferenceStoreTests {
    static func key(_ text: String) -> PreferenceKey { (try? PreferenceKey(text)) ?? WellKnownKey.counter }

    @Test("values are kept exactly: integers stay integers, 1.0 stays a number, objects keep their order", arguments: StoreKind.testCases)
    func exactValues(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("exact")
            let values: [JSONValue] = [.integer(1), .number(1.0), .number(0.1), .string("1"), .bool(true),
                                       .array([.integer(1), .null]), try JSONValue.parse(#"{"z":1,"a":{"y":2.50,"b":[]}}"#)]
            for (index, value) in values.enumerated() {
                _ = try await store.setPreference(value, for: Self.key("k\(index)"), of: p, if: nil)
            }
            for (index, value) in values.enumerated() {
                let slot = try await store.preference(Self.key("k\(index)"), of: p)
                #expect(slot.value == value)
                #expect(slot.value?.jsonText == value.jsonText, "written back as it was read")
            }
        }
    }

    @Test("P-5/P-6: defaults show only where nothing is stored, and again after a removal", arguments: StoreKind.testCases)
    func layering(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("layers")
            let theme = Self.key("theme")
            _ = try await store.setDefaults(["theme": .string("light"), "volume": .number(0.5)], merging: false, of: p, if: nil)
            #expect(try await store.preference(theme, of: p).value == .string("light"))
            let set = try await store.setPreference(.string("dark"), for: theme, of: p, if: nil)
            #expect(set.slot.source == .stored)
            #expect(!set.created, "a default showed, so the key had a value already")
            #expect(try await store.preferences(of: p).merged == ["theme": .string("dark"), "volume": .number(0.5)])
            let removed = try await store.removePreference(theme, of: p, if: nil)
            #expect(removed.slot.value == .string("light"))
            #expect(removed.slot.source == .registered)
            #expect(try await store.preference(theme, of: p).value == .string("light"))
            let bounds = try await store.eventLogBounds(of: p)
            let again = try await store.removePreference(theme, of: p, if: nil)
            #expect(again.eventID == nil, "removing what is not stored changes nothing (removeObject(forKey:))")
            #expect(again.slot.value == .string("light"))
            #expect(try await store.eventLogBounds(of: p) == bounds, "and logs nothing")
            let fresh = try await store.setPreference(.integer(1), for: Self.key("new"), of: p, if: nil)
            #expect(fresh.created)
        }
    }

    @Test("versions come from the event sequence and never repeat for a key, even across removals", arguments: StoreKind.testCases)
    func versionsNeverRepeat(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("versions")
            let k = Self.key("k")
            var seen: [Version] = []
            for round in 0..<3 {
                seen.append(try await store.setPreference(.integer(Int64(round)), for: k, of: p, if: nil).slot.viewVersion)
                seen.append(try await store.removePreference(k, of: p, if: nil).slot.viewVersion)
            }
            #expect(seen == seen.sorted() && Set(seen).count == seen.count)
            let snapshot = try await store.preferences(of: p)
            #expect(snapshot.version == seen.last)
        }
    }

    @Test("If-Match, If-None-Match: * and If-None-Match with versions guard preference writes", arguments: StoreKind.testCases)
    func preconditions(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("guarded")
            let k = Self.key("k")
            await #expect(throws: StoreError.preconditionFailed(current: nil)) {
                try await store.setPreference(.integer(1), for: k, of: p, if: .exists)
            }
            let created = try await store.setPreference(.integer(1), for: k, of: p, if: .absent)
            await #expect(throws: StoreError.preconditionFailed(current: created.slot.version)) {
                try await store.setPreference(.integer(2), for: k, of: p, if: .absent)
            }
            await #expect(throws: StoreError.self) {
                try await store.setPreference(.integer(2), for: k, of: p, if: .noneOf([created.slot.viewVersion]))
            }
            let updated = try await store.setPreference(.integer(2), for: k, of: p, if: .version(in: [created.slot.viewVersion]))
            await #expect(throws: StoreError.preconditionFailed(current: updated.slot.version)) {
                try await store.removePreference(k, of: p, if: .version(in: [created.slot.viewVersion]))
            }
            #expect(try await store.preference(k, of: p).value == .integer(2))
            _ = try await store.removePreference(k, of: p, if: .version(in: [updated.slot.viewVersion]))
        }
    }

    @Test("the counter and numIndex are one value, whichever route writes it", arguments: StoreKind.testCases)
    func counterIsNumIndex(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("views")
            _ = try await store.apply(.increment(step(4)), toCounterOf: p, if: nil)
            #expect(try await store.preference(WellKnownKey.counter, of: p).value == .string("4"), "the seed's string form")
            _ = try await store.setPreference(.integer(10), for: WellKnownKey.counter, of: p, if: nil)
            #expect(try await store.counter(of: p).counter.value == 10)
            if let cached = (store as? any CounterCacheReading)?.cachedCounter(of: p) {  // only SQLite keeps a cache
                #expect(cached == CounterState(profile: p, counter: Counter(10), version: try await store.counter(of: p).version))
            }
            await #expect(throws: StoreError.self) {
                try await store.setPreference(.string("ten"), for: WellKnownKey.counter, of: p, if: nil)
            }
            _ = try await store.removePreference(WellKnownKey.counter, of: p, if: nil)
            #expect(try await store.counter(of: p).counter.value == 0, "C-1 again after a removal")
            _ = try await store.setDefaults(["numIndex": .integer(41)], merging: false, of: p, if: nil)
            #expect(try await store.counter(of: p).counter.value == 41, "the counter reads its registered default")
            #expect(try await store.apply(.increment(.one), toCounterOf: p, if: nil).state.counter.value == 42)
            await #expect(throws: StoreError.self) {
                try await store.setDefaults(["numIndex": .string("forty")], merging: false, of: p, if: nil)
            }
        }
    }

    @Test("F-1..F-6: font settings store both keys, read back, and log exactly one refresh per change", arguments: StoreKind.testCases)
    func font(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("font")
            _ = try await store.setPreference(.integer(0), for: WellKnownKey.counter, of: p, if: nil)  // create the profile
            let fresh = try await store.font(of: p)
            #expect(fresh.settings == FontSettings(sliderValue: 0, fontSize: 0))
            #expect(fresh.settings.effectiveFontSize == 17)
            let before = try await store.events(of: p, after: 0, limit: 100).count
            let change = try await store.setFont(try FontSettings.settingSlider(to: 2.5), of: p, if: nil)
            #expect(change.state.settings == FontSettings(sliderValue: 3, fontSize: 20))
            #expect(try await store.preference(WellKnownKey.sliderValue, of: p).value == .number(3))
            #expect(try await store.preference(WellKnownKey.fontSize, of: p).value == .number(20))
            var events = try await store.events(of: p, after: 0, limit: 100)
            #expect(events.count == before + 1)
            #expect(events.last?.type == .refresh)
            // A refused change logs nothing.
            await #expect(throws: StoreError.self) {
                try await store.setFont(try FontSettings.settingSlider(to: 1), of: p, if: .version(in: [Version(1)]))
            }
            // Writing a font key through the preference routes is a font change too.
            _ = try await store.setPreference(.number(30), for: WellKnownKey.fontSize, of: p, if: nil)
            events = try await store.events(of: p, after: 0, limit: 100)
            #expect(events.count == before + 2)
            #expect(events.last?.type == .refresh)
            #expect(try await store.font(of: p).settings.effectiveFontSize == 30)
            _ = try await store.removePreference(WellKnownKey.fontSize, of: p, if: nil)
            #expect(try await store.font(of: p).settings.effectiveFontSize == 17)
            #expect(try await store.events(of: p, after: 0, limit: 100).last?.type == .refresh)
        }
    }

    @Test("P-7: every accepted change logs one event of its view's type; refused ones log none", arguments: StoreKind.testCases)
    func oneEventPerChange(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("events")
            _ = try await store.setPreference(.string("a"), for: Self.key("plain"), of: p, if: nil)
            _ = try? await store.setPreference(.string("b"), for: Self.key("plain"), of: p, if: .absent)
            _ = try await store.removePreference(Self.key("plain"), of: p, if: nil)
            _ = try? await store.removePreference(Self.key("plain"), of: p, if: nil)
            _ = try await store.setDefaults(["plain": .integer(1)], merging: false, of: p, if: nil)
            _ = try await store.setPreference(.integer(3), for: WellKnownKey.counter, of: p, if: nil)
            _ = try? await store.setPreference(.integer(3), for: WellKnownKey.sliderValue, of: p, if: .version(in: []))
            let events = try await store.events(of: p, after: 0, limit: 100)
            #expect(events.map(\.type) == [.preference, .preference, .preference, .counter])
            #expect(events.map(\.id) == [1, 2, 3, 4])
            #expect(events[1].data.contains(#""removed":true"#))
            #expect(events[2].data.contains(#""defaults":{"plain":1}"#))
        }
    }

    @Test("a profile stores at most the configured number of keys; replacing a key is always allowed", arguments: StoreKind.testCases)
    func keyLimit(kind: StoreKind) async throws {
        let database = try TestDatabase(kind)
        defer { database.remove() }
        let store = try database.open(StoreSettings(maxPreferencesPerProfile: 3))
        let p = profile("full")
        for index in 0..<3 { _ = try await store.setPreference(.integer(1), for: Self.key("k\(index)"), of: p, if: nil) }
        await #expect(throws: StoreError.tooManyPreferences(limit: 3)) {
            try await store.setPreference(.integer(1), for: Self.key("k3"), of: p, if: nil)
        }
        _ = try await store.setPreference(.integer(2), for: Self.key("k0"), of: p, if: nil)
        _ = try await store.removePreference(Self.key("k1"), of: p, if: nil)
        _ = try await store.setPreference(.integer(1), for: Self.key("k3"), of: p, if: nil)
        await store.close()
    }

}
