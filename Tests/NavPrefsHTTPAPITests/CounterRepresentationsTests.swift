import Foundation
@testable import NavPrefsHTTPAPI
import NavPrefsCore
import Testing

/// The memo of counter bytes the hot read path sends.
@Suite("Counter representations: built once per version, never stale")
struct CounterRepresentationsTests {
    func state(_ value: Int64, version: Int64, profile: String = "ana") throws -> CounterState {
        CounterState(profile: try ProfileName(profile), counter: Counter(value), version: Version(version))
    }

    @Test("the bytes are the counter's JSON with its ETag; a read of the same state reuses them")
    func reuse() throws {
        let memo = CounterRepresentations()
        let first = memo.representation(of: try state(5, version: 7))
        #expect(String(decoding: first.body, as: UTF8.self) == "{\"profile\":\"ana\",\"value\":5,\"stringValue\":\"5\",\"version\":7}\n")
        #expect(first.etag == "\"7\"")
        let again = memo.representation(of: try state(5, version: 7))
        #expect(again.body.withUnsafeBufferPointer { $0.baseAddress } == first.body.withUnsafeBufferPointer { $0.baseAddress },
                "the same storage, not rebuilt")
    }

    @Test("another version or value, or another profile, gets its own bytes")
    func neverStale() throws {
        let memo = CounterRepresentations()
        _ = memo.representation(of: try state(5, version: 7))
        #expect(String(decoding: memo.representation(of: try state(6, version: 8)).body, as: UTF8.self).contains("\"value\":6"))
        #expect(String(decoding: memo.representation(of: try state(9, version: 8)).body, as: UTF8.self).contains("\"value\":9"))
        #expect(String(decoding: memo.representation(of: try state(1, version: 8, profile: "bob")).body, as: UTF8.self)
            .hasPrefix("{\"profile\":\"bob\""))
    }
}
