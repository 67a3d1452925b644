import Foundation
import HTTPTestClient
import Testing

/// Issue 21, item 3: one rule for keys on every path. Keys compare by their UTF-8 bytes, as
/// Apple's UserDefaults (CFPreferences compares CFString keys code unit by code unit) and both
/// databases do: `café` spelled NFC (`caf%C3%A9`) and NFD (`cafe%CC%81`) are two keys. Before,
/// `GET .../preferences` and the PATCH answer listed one of them (a `Set<String>` merged them).
@Suite("Keys compare by bytes on every path: NFC and NFD spellings are two keys")
struct KeyBytesAPITests {
    static let nfc = "caf\u{E9}"
    static let nfd = "cafe\u{301}"

    @Test("single reads, the listing, the PATCH answer, /state, events and export all hold both spellings")
    func bothSpellingsEverywhere() async throws {
        try await withApp { app in
            #expect(try await app.request("PUT", "/v1/profiles/k/preferences/caf%C3%A9", json: #"{"value":"nfc"}"#).status == 201)
            #expect(try await app.request("PUT", "/v1/profiles/k/preferences/cafe%CC%81", json: #"{"value":"nfd"}"#).status == 201)
            #expect(try await app.request("GET", "/v1/profiles/k/preferences/caf%C3%A9").json()["value"] as? String == "nfc")
            #expect(try await app.request("GET", "/v1/profiles/k/preferences/cafe%CC%81").json()["value"] as? String == "nfd")

            /// Whether `text` holds `"key":` followed by `value`, byte for byte (Swift's `contains`
            /// and Foundation's dictionaries would take either spelling for the other).
            func holds(_ text: String, _ key: String, _ value: String) -> Bool {
                let needle = Array("\"\(key)\":".utf8) + Array(value.utf8)
                let bytes = Array(text.utf8)
                guard bytes.count >= needle.count else { return false }
                return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
            }
            let listing = try await app.request("GET", "/v1/profiles/k/preferences").text
            #expect(holds(listing, Self.nfc, "\"nfc\"") && holds(listing, Self.nfd, "\"nfd\""), "\(listing)")
            // The PATCH answer holds what changed: both spellings, each with its own new value.
            let patch = try await app.request("PATCH", "/v1/profiles/k/preferences", headers: [("Content-Type", "application/merge-patch+json")],
                                              body: #"{"caf\u00e9":"nfc2","cafe\u0301":"nfd2","x":"1"}"#).text
            #expect(holds(patch, "key", "\"\(Self.nfc)\",\"value\":\"nfc2\"") && holds(patch, "key", "\"\(Self.nfd)\",\"value\":\"nfd2\""),
                    "\(patch)")
            let state = try await app.request("GET", "/v1/profiles/k/state").text
            #expect(holds(state, Self.nfc, "{\"value\":\"nfc2\"") && holds(state, Self.nfd, "{\"value\":\"nfd2\""), "\(state)")
            let events = try await app.request("GET", "/v1/profiles/k/events?after=0", headers: [("Accept", "application/json")]).text
            #expect(holds(events, "key", "\"\(Self.nfc)\"") && holds(events, "key", "\"\(Self.nfd)\""), "\(events.prefix(500))")
        }
    }
}
