import Foundation
import NavPrefsCore
import NavPrefsJSON
@testable import NavPrefsStore
import NavPrefsSQLite
import Testing
import StoreTestSupport

/// Export and import through the store algorithm, against every store (see ``StoreKind``): a
/// round trip is exact, a store that holds data is refused, and an import that does not finish
/// leaves a store the service refuses.
@Suite("Store contract: export and import")
struct TransferStoreTests {
    @Test("a round trip is exact: the second export is the first byte for byte; versions, ETags and event ids read the same",
          arguments: StoreKind.testCases)
    func roundTrip(kind: StoreKind) async throws {
        try await withStore(kind) { source, _ in
            try await TransferFixture.populate(source)
            let first = try await TransferFixture.export(source)
            try await withStore(kind) { target, _ in
                let counts = try await TransferFixture.import(first, into: target, maxBatchRows: 3)
                #expect(counts.events == 26)
                #expect(try await TransferFixture.export(target) == first)
                for name in ["ana", "bob", "nav", "B1", "default"] {
                    let p = profile(name)
                    #expect(try await target.counter(of: p) == source.counter(of: p))
                    #expect(try await target.preferences(of: p) == source.preferences(of: p))
                    #expect(try await target.defaults(of: p) == source.defaults(of: p))
                    #expect(try await target.eventLogBounds(of: p) == source.eventLogBounds(of: p))
                    #expect(try await target.events(of: p, after: 0, limit: 100) == source.events(of: p, after: 0, limit: 100))
                }
                #expect(try await target.sessions(of: profile("nav")) == source.sessions(of: profile("nav")))
                #expect(try await target.font(of: profile("bob")) == source.font(of: profile("bob")))
                #expect(try await target.tokens() == source.tokens())
                // The next write continues each profile's sequence.
                #expect(try await target.apply(.increment(.one), toCounterOf: profile("ana"), if: nil).eventID
                    == source.apply(.increment(.one), toCounterOf: profile("ana"), if: nil).eventID)
            }
        }
    }

    @Test("the export lists profiles in byte order and reads in pages of any size", arguments: StoreKind.testCases)
    func pagesAndOrder(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            try await TransferFixture.populate(store)
            let whole = try await TransferFixture.export(store)
            #expect(try await TransferFixture.export(store, profilesPerPage: 1, eventsPerPage: 1) == whole)
            #expect(try await TransferFixture.export(store, profilesPerPage: 3, eventsPerPage: 2) == whole)
            let names = whole.compactMap { $0.firstMatch(of: /^\{"record":"profile","name":"([^"]+)"/).map { String($0.1) } }
            #expect(names == ["9z", "B1", "Z-9.x", "a1", "ana", "b.0", "bob", "default", "emptyDefaults", "nav"])
            let keys = whole.compactMap { line -> String? in
                guard let record = try? TransferRecord(line: Array(line.utf8), number: 0) else { return nil }
                switch record {
                case .preference(let profile, let key, _, _, _) where profile.rawValue == "ana": return key.rawValue
                case .tombstone(let profile, let key, _, _) where profile.rawValue == "ana": return key.rawValue
                default: return nil
                }
            }
            #expect(keys.count == 12)
            #expect(keys == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, "keys in byte order: \(keys)")
            #expect(whole.first == #"{"record":"header","format":"navprefs-export","version":2,"source":{"navprefs":"test","store":"test"},"secrets":true}"#)
            #expect(whole.last == #"{"record":"end","profiles":10,"preferences":18,"tombstones":1,"defaults":2,"sessions":1,"events":26,"tokens":2,"secrets":1}"#)
            #expect(whole.contains { $0.wholeMatch(of: /\{"record":"defaults","profile":"emptyDefaults","version":1,"lastChange":\{"at":\d+,"author":null\},"values":\{\}\}/) != nil })
            #expect(whole.contains { $0.hasPrefix(#"{"record":"tombstone","profile":"ana","key":"theme","version":"#) })
        }
    }

    @Test("secrets stay out unless asked for", arguments: StoreKind.testCases)
    func secretsOnlyWhenAsked(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            try await TransferFixture.populate(store)
            var header = TransferFixture.header
            header.includesSecrets = false
            let lines = try await TransferFixture.export(store, header: header)
            #expect(!lines.contains { $0.contains("secret-value") })
            #expect(lines.last?.hasSuffix(#""secrets":0}"#) == true)
        }
    }

    @Test("a store that holds data is refused, and replaced only when asked", arguments: StoreKind.testCases)
    func nonEmptyTarget(kind: StoreKind) async throws {
        try await withStore(kind) { source, _ in
            try await TransferFixture.populate(source)
            let lines = try await TransferFixture.export(source)
            try await withStore(kind) { target, _ in
                _ = try await target.apply(.increment(.one), toCounterOf: profile("mine"), if: nil)
                await #expect {
                    try await TransferFixture.import(lines, into: target)
                } throws: { error in
                    guard case ImportFailure.notEmpty(let content) = error else { return false }
                    return content.profiles == 1 && content.tokens == 0 && "\(error)".contains("--replace")
                }
                #expect(try await target.counter(of: profile("mine")).counter.value == 1, "nothing changed")
                try await TransferFixture.import(lines, into: target, replacing: true)
                #expect(try await target.eventLogBounds(of: profile("mine")).latest == 0, "the profile is gone")
                #expect(try await TransferFixture.export(target) == lines)
            }
        }
    }

    @Test("a file cut short leaves the store marked: the service refuses it, --replace starts over", arguments: StoreKind.testCases)
    func cutShort(kind: StoreKind) async throws {
        try await withStore(kind) { source, _ in
            try await TransferFixture.populate(source)
            let lines = try await TransferFixture.export(source)
            try await withStore(kind) { target, database in
                await #expect {
                    try await TransferFixture.import(Array(lines.dropLast(3)), into: target, maxBatchRows: 2)
                } throws: { error in
                    "\(error)".contains("the file ends without its end record")
                }
                let content = try await target.content()
                #expect(content.unfinishedImport == "test import")
                await #expect(throws: ImportFailure.self) { try await TransferFixture.import(lines, into: target) }
                await target.close()
                #expect {
                    try database.open()
                } throws: { error in
                    "\(error)".contains("an import into") && "\(error)".contains("did not finish (test import)")
                }
                let importer = try database.open(StoreSettings(access: .importer))
                try await TransferFixture.import(lines, into: importer, replacing: true)
                await importer.close()
                let service = try database.open()
                #expect(try await TransferFixture.export(service) == lines)
                await service.close()
            }
        }
    }
}
