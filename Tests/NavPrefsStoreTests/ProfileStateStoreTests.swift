import Foundation
import NavPrefsCore
@testable import NavPrefsStore
import Testing
import StoreTestSupport

/// One consistent read of a whole profile (``Store/state(of:)``), against every store: it
/// agrees with the individual reads, and its event id is the newest change it includes.
@Suite("Store contract: a profile's whole state")
struct ProfileStateStoreTests {
    @Test("a profile nobody wrote to: nothing, event id 0, the counter 0 and the font 17", arguments: StoreKind.testCases)
    func fresh(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let state = try await store.state(of: profile("nobody"))
            #expect(state.lastEventID == 0)
            #expect(state.slots.isEmpty)
            #expect(state.preferences.version == .initial)
            #expect(state.counter == .fresh(profile("nobody")))
            #expect(state.font.settings.effectiveFontSize == 17)
            #expect(state.sessions.isEmpty)
        }
    }

    @Test("every view agrees with its own read; slots carry the versions If-Match needs", arguments: StoreKind.testCases)
    func agreesWithReads(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("whole")
            _ = try await store.setDefaults(["theme": .string("light"), "volume": .number(0.5), "numIndex": .integer(7)],
                                            merging: false, of: p, if: nil)
            _ = try await store.setPreference(.string("dark"), for: try PreferenceKey("theme"), of: p, if: nil)
            _ = try await store.setPreference(.integer(3), for: try PreferenceKey("launches"), of: p, if: nil)
            _ = try await store.removePreference(try PreferenceKey("launches"), of: p, if: nil)
            _ = try await store.setFont(try FontSettings.settingSlider(to: 2), of: p, if: nil)
            _ = try await store.createSession(NavigationSession(root: Screen(id: try ScreenID("home"))), of: p)
            let state = try await store.state(of: p)
            #expect(state.lastEventID == 6)
            #expect(state.lastEventID == (try await store.eventLogBounds(of: p)).latest)
            #expect(state.preferences == (try await store.preferences(of: p)))
            #expect(state.counter == (try await store.counter(of: p)))
            #expect(state.font == (try await store.font(of: p)))
            #expect(state.sessions == (try await store.sessions(of: p)))
            #expect(state.slots.map(\.key.rawValue) == ["fontSizekey", "numIndex", "sliderValuekey", "theme", "volume"])
            for slot in state.slots {
                #expect(slot == (try await store.preference(slot.key, of: p)), "\(slot.key)")
            }
        }
    }

    @Test("the state read while writes go on is one snapshot: its values are those of its event id", arguments: StoreKind.testCases)
    func snapshot(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let p = profile("busy")
            let writer = Task {
                for _ in 0..<60 { _ = try await store.apply(.increment(.one), toCounterOf: p, if: nil) }
            }
            for _ in 0..<20 {
                let state = try await store.state(of: p)
                // Each increment is one event: the counter read in the snapshot equals its event id.
                #expect(state.counter.counter.value == state.lastEventID)
                #expect(state.counter.version.rawValue == state.lastEventID)
            }
            try await writer.value
        }
    }
}
