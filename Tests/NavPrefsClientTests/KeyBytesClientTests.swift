import Foundation
import HTTPTestClient
import NavPrefsClient
import Testing

extension ClientSuites {
    /// Keys compare by their bytes in the client as on the server (issue 21): `café` written NFC
    /// and NFD are two keys, although Swift's `String` calls them equal.
    @Suite("One rule for keys: bytes, in the client too")
    struct KeyBytesClientTests {
        static let nfc = "caf\u{E9}", nfd = "cafe\u{301}"

        /// The text members of the server's `GET .../preferences` values, by their bytes.
        static func served(_ rig: ClientRig, _ profile: String) async throws -> [[UInt8]: JSON] {
            guard case .object(let members)? = try JSON(parsing: try await rig.request("GET", "/v1/profiles/\(profile)/preferences").text)["values"]
            else { return [:] }
            return Dictionary(members.map { (Array($0.name.utf8), $0.value) }, uniquingKeysWith: { first, _ in first })
        }

        @Test("café NFC and NFD stay two values: queued offline, sent by the outbox, stored, streamed to another client, removed, reloaded")
        func twoSpellings() async throws {
            #expect(Self.nfc == Self.nfd && !Self.nfc.utf8.elementsEqual(Self.nfd.utf8), "Swift's String merges them; their bytes differ")
            try await withRig { rig in
                let phoneSuite = "navprefs-test-\(UUID().uuidString)"
                let phone = try rig.profile("spellings", suite: phoneSuite), tablet = try rig.profile("spellings")
                phone.start()
                tablet.start()
                #expect(await eventually { phone.isConnected && tablet.isConnected })
                let nfdChanges = Locked<[JSON?]>([])
                let watching = Task {
                    for await change in tablet.preferences.changes(forKey: Self.nfd) { nfdChanges.withLock { $0.append(change.value) } }
                }
                defer { watching.cancel() }

                // Offline: both writes wait in the outbox, and the mirror shows each under its own bytes.
                rig.proxy.route(to: [])
                rig.proxy.cutAll()
                phone.preferences.set("composed", forKey: Self.nfc)
                phone.preferences.set("decomposed", forKey: Self.nfd)
                #expect(phone.pendingWrites == 2)
                #expect(phone.preferences.value(forKey: Self.nfc) == "composed")
                #expect(phone.preferences.value(forKey: Self.nfd) == "decomposed")
                #expect(phone.preferences.source(forKey: Self.nfc) == "stored")

                // Back online: the server stores two keys, and the other client's stream brings both.
                rig.proxy.route(to: [rig.server.port])
                #expect(await eventually(within: .seconds(5)) { phone.pendingWrites == 0 })
                let stored = try await Self.served(rig, "spellings")
                #expect(stored[Array(Self.nfc.utf8)] == "composed")
                #expect(stored[Array(Self.nfd.utf8)] == "decomposed")
                #expect(await eventually(within: .seconds(5)) {
                    tablet.preferences.value(forKey: Self.nfc) == "composed" && tablet.preferences.value(forKey: Self.nfd) == "decomposed"
                })
                #expect(tablet.preferences.version(forKey: Self.nfc) != tablet.preferences.version(forKey: Self.nfd))
                #expect(await eventually { nfdChanges.withLock { $0 } == ["decomposed"] }, "the NFD key's stream saw its own change only")

                // Removing one spelling leaves the other, here, on the server and on the other client.
                phone.preferences.removeObject(forKey: Self.nfc)
                #expect(phone.preferences.value(forKey: Self.nfc) == nil)
                #expect(phone.preferences.value(forKey: Self.nfd) == "decomposed")
                #expect(await eventually(within: .seconds(5)) { phone.pendingWrites == 0 && tablet.preferences.value(forKey: Self.nfc) == nil })
                #expect(tablet.preferences.value(forKey: Self.nfd) == "decomposed")
                #expect(try await Self.served(rig, "spellings").keys.map { $0 } == [Array(Self.nfd.utf8)])
                #expect(nfdChanges.withLock { $0 } == ["decomposed"], "the NFC key's removal is not the NFD key's change")

                // Both again, then a mirror read back from disk and a fresh reload keep them apart.
                try await phone.preferences.onServer.set("composed again", forKey: Self.nfc)
                await phone.stop()
                let reopened = try rig.profile("spellings", suite: phoneSuite)
                #expect(reopened.preferences.value(forKey: Self.nfc) == "composed again", "persisted mirror")
                #expect(reopened.preferences.value(forKey: Self.nfd) == "decomposed", "persisted mirror")
                let fresh = try rig.profile("spellings")
                try await fresh.reload()
                #expect(fresh.preferences.value(forKey: Self.nfc) == "composed again")
                #expect(fresh.preferences.value(forKey: Self.nfd) == "decomposed")

                // Foundation's getters answer each spelling's own value, with Foundation's coercions.
                #expect(fresh.preferences.object(forKey: Self.nfc) as? String == "composed again")
                #expect(fresh.preferences.string(forKey: Self.nfd) == "decomposed")
                try await fresh.preferences.onServer.set("42", forKey: Self.nfc)
                try await fresh.preferences.onServer.set(7.5, forKey: Self.nfd)
                #expect(fresh.preferences.integer(forKey: Self.nfc) == 42)
                #expect(fresh.preferences.double(forKey: Self.nfd) == 7.5)
                #expect(fresh.preferences.integer(forKey: Self.nfd) == 7)
                #expect(fresh.preferences.string(forKey: Self.nfc) == "42")

                // Where the public API cannot tell them apart: a [String: Any] merges canonically
                // equal keys (docs/swift-client.md says so).
                let dictionary = fresh.preferences.dictionaryRepresentation()
                #expect(dictionary.keys.filter { $0 == Self.nfc }.count == 1)
            }
        }
    }
}
