import Foundation
import NavPrefsCore
import NavPrefsJSON
@testable import NavPrefsStore
import Testing
import StoreTestSupport

/// Values nested deeper than the API accepts today (``JSONDepth/maxValueDepth``), as a store
/// written before that bound holds them: the export carries them as JSON text, the import reads
/// them back, and an event no parser reads starts the profile's log after it instead of failing
/// the export of the whole store.
@Suite("Store contract: deep values stored before the depth bound export and import")
struct TransferDepthTests {
    /// `[[...]]` nested `depth` levels.
    static func nested(_ depth: Int) -> JSONValue {
        (0..<depth).reduce(JSONValue.integer(1)) { inner, _ in .array([inner]) }
    }

    @Test("a value, a default and a session of any depth Jansson read go through export and import unchanged",
          arguments: StoreKind.testCases)
    func deepValuesMove(kind: StoreKind) async throws {
        try await withStore(kind) { source, _ in
            let old = profile("old")
            let deep = Self.nested(2_000), shallow = Self.nested(JSONDepth.maxValueDepth)
            _ = try await source.setPreference(deep, for: PreferenceStoreTests.key("deep"), of: old, if: nil)
            _ = try await source.setPreference(shallow, for: PreferenceStoreTests.key("shallow"), of: old, if: nil)
            _ = try await source.setDefaults(["d": deep, "e": .integer(2)], merging: false, of: old, if: nil)
            let lines = try await TransferFixture.export(source)
            // Every line nests a few levels, so any JSON parser reads it.
            #expect(lines.allSatisfy { JSONDepth.of(text: $0) <= JSONDepth.maxInlineDepth + 3 })
            #expect(lines.contains { $0.contains(#""record":"preference""#) && $0.contains(#""valueJSON":"[[[["#) })
            #expect(lines.contains { $0.contains(#""key":"shallow""#) && $0.contains(#""value":[[[["#) })
            #expect(lines.contains { $0.contains(#""record":"defaults""#) && $0.contains(#""valuesJSON":{"d":"[[[["#) })
            try await withStore(kind) { target, _ in
                try await TransferFixture.import(lines, into: target)
                #expect(try await target.preferences(of: old) == source.preferences(of: old))
                #expect(try await target.defaults(of: old) == source.defaults(of: old))
                #expect(try await target.events(of: old, after: 0, limit: 10) == source.events(of: old, after: 0, limit: 10))
                #expect(try await TransferFixture.export(target) == lines)
            }
        }
    }

    @Test("an event too deep for any parser here starts the profile's log after it; other profiles move whole",
          arguments: StoreKind.testCases)
    func unreadableEventStartsTheLog(kind: StoreKind) async throws {
        try await withStore(kind) { source, _ in
            let old = profile("old"), other = profile("other")
            _ = try await source.apply(.increment(.one), toCounterOf: old, if: nil)
            // The defaults event nests the value 2 levels deeper: past what Jansson parses.
            let logged = try await source.setDefaults(["d": Self.nested(2_046)], merging: false, of: old, if: nil)
            let data = try #require(try await source.events(of: old, after: logged.eventID - 1, limit: 1).first?.data)
            #expect((try? JSONValue.parse(data)) == nil, "the defaults event is past Jansson's depth")
            let after = try await source.apply(.increment(.one), toCounterOf: old, if: nil)
            _ = try await source.apply(.increment(.one), toCounterOf: other, if: nil)
            let lines = try await TransferFixture.export(source)
            let oldEvents = Self.eventIDs(of: "old", in: lines)
            #expect(oldEvents == [after.eventID], "only the events after the unreadable one: \(oldEvents)")
            #expect(Self.eventIDs(of: "other", in: lines) == [1])
            try await withStore(kind) { target, _ in
                try await TransferFixture.import(lines, into: target)
                #expect(try await target.defaults(of: old) == source.defaults(of: old))
                #expect(try await target.eventLogBounds(of: old) == EventLogBounds(earliest: after.eventID, latest: after.eventID))
                #expect(try await target.apply(.increment(.one), toCounterOf: old, if: nil).eventID == after.eventID + 1)
            }
        }
    }

    static func eventIDs(of name: String, in lines: [String]) -> [Int64] {
        lines.compactMap { line in
            guard case .event(let event)? = try? TransferRecord(line: Array(line.utf8), number: 0), event.profile.rawValue == name
            else { return nil }
            return event.id
        }
    }
}
