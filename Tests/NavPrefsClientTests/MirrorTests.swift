import Foundation
import HTTPTestClient
import NavPrefsClient
import Testing

extension ClientSuites {
    /// The mirror reads like UserDefaults: Foundation's getters, the server's answers, offline.
    @Suite("The mirror")
    struct MirrorTests {
        /// Values of every kind a preference holds, stored through the library.
        static let values: [(String, JSON)] = [
            ("int", 42), ("negative", -7), ("big", .integer(1 << 53)), ("zero", 0), ("double", 2.5), ("whole", 2.0), ("tiny", 1e-300),
            ("true", true), ("false", false), ("text", "hello"), ("numeric", "42"), ("decimal", "12.9"), ("spaced", " 7"), ("yes", "YES"),
            ("empty", ""), ("strings", ["a", "b"]), ("mixed", [1, "a", true]), ("emptyArray", []), ("object", ["k": 1, "s": "v"]),
            ("nested", ["list": [1, 2], "flag": false]),
        ]

        @Test("every getter of the mirror answers what the server's typed read answers for the same value")
        func gettersAgree() async throws {
            try await withRig { rig in
                let profile = try rig.profile("getters")
                try await profile.reload()
                for (key, value) in Self.values { try await profile.preferences.onServer.set(value, forKey: key) }
                try await profile.preferences.onServer.register(defaults: ["registered": 3.5, "text": "shadowed"])
                let defaults = profile.preferences
                for key in Self.values.map(\.0) + ["registered", "absent"] {
                    for getter in ["string", "integer", "float", "double", "bool", "array", "dictionary", "stringArray", "object"] {
                        let served = try await rig.request("GET", "/v1/profiles/getters/preferences/\(key)?as=\(getter)")
                        let expected = try JSON(parsing: served.text)["value"] ?? .null
                        let mirrored: JSON = switch getter {
                        case "string": defaults.string(forKey: key).map(JSON.string) ?? .null
                        case "integer": .integer(Int64(defaults.integer(forKey: key)))
                        case "float": .number(Double(defaults.float(forKey: key)))
                        case "double": .number(defaults.double(forKey: key))
                        case "bool": .bool(defaults.bool(forKey: key))
                        case "array": defaults.array(forKey: key) == nil ? .null : (defaults.value(forKey: key) ?? .null)
                        case "dictionary": defaults.dictionary(forKey: key) == nil ? .null : (defaults.value(forKey: key) ?? .null)
                        case "stringArray": defaults.stringArray(forKey: key).map { .array($0.map(JSON.string)) } ?? .null
                        default: defaults.value(forKey: key) ?? .null
                        }
                        #expect(Self.same(mirrored, expected), "\(getter)(forKey: \(key)): mirror \(mirrored.jsonText), server \(expected.jsonText)")
                    }
                    #expect(defaults.object(forKey: key) != nil || defaults.value(forKey: key) == nil, "object(forKey: \(key))")
                }
                #expect(defaults.string(forKey: "text") == "hello", "stored over registered")
                #expect(defaults.source(forKey: "registered") == "registered")
            }
        }

        @Test("a key with only a registered default reads as that default on the first load, after reload(), and from the saved mirror")
        func registeredOnlyDefault() async throws {
            try await withRig { rig in
                _ = try await rig.request("PUT", "/v1/profiles/regtest/defaults", json: #"{"mode": "auto", "level": 3}"#)
                _ = try await rig.request("PUT", "/v1/profiles/regtest/preferences/theme", json: #"{"value": "dark"}"#)
                let suite = "navprefs-test-\(UUID().uuidString)"
                func expectDefaults(_ profile: NavPrefsProfile, _ moment: String) {
                    let defaults = profile.preferences
                    #expect(defaults.value(forKey: "mode") == "auto", "\(moment): value")
                    #expect(defaults.string(forKey: "mode") == "auto", "\(moment): string")
                    #expect(defaults.integer(forKey: "level") == 3, "\(moment): integer")
                    #expect(defaults.source(forKey: "mode") == "registered", "\(moment): source")
                    #expect(defaults.string(forKey: "theme") == "dark", "\(moment): a stored value beside them")
                    #expect(defaults.source(forKey: "theme") == "stored", "\(moment): its source")
                }
                let first = try rig.profile("regtest", suite: suite)
                #expect(try await first.ready() == .server)
                expectDefaults(first, "first load")
                try await first.reload()
                expectDefaults(first, "after reload()")
                await first.stop()
                let again = try rig.profile("regtest", suite: suite)
                #expect(try await again.ready() == .mirror)
                expectDefaults(again, "from the saved mirror")
            }
        }

        /// Numbers compare as numbers (a server's `2` and the mirror's `2.0` for a `float`).
        static func same(_ a: JSON, _ b: JSON) -> Bool {
            if let x = a.doubleValue, let y = b.doubleValue, a.boolValue == nil, b.boolValue == nil { return x == y }
            return a == b
        }

        @Test("offline: a new profile object on the same mirror answers the last known state, with the server gone")
        func offlineReads() async throws {
            let suite = "navprefs-test-offline-\(UUID().uuidString)"
            let rig = try await ClientRig()
            let first = try rig.profile("offline", suite: suite)
            first.start()
            try await first.preferences.onServer.set("dark", forKey: "theme")
            try await first.counter.onServer.increment(by: 5)
            try await first.font.onServer.setSliderValue(3)
            try await first.preferences.onServer.register(defaults: ["volume": 0.8])
            await first.stop()
            rig.proxy.close()
            await rig.server.stop()

            let client = NavPrefsClient(server: URL(string: "http://127.0.0.1:\(rig.proxy.port)")!)
            let again = try client.profile("offline", options: ProfileOptions(suiteName: suite, notificationDelivery: .immediately))
            again.start()  // nothing to connect to: reads still answer
            #expect(again.isLoaded)
            // The stream cannot connect: the last error says so, in one "transport:".
            #expect(await eventually { again.lastError != nil })
            let error = try #require(again.lastError)
            #expect(error.description.hasPrefix("transport: cannot connect to 127.0.0.1:\(rig.proxy.port)"), "\(error)")
            #expect(error.description.components(separatedBy: "transport").count == 2, "\(error)")
            #expect(error.localizedDescription.hasPrefix("The NavPrefs server could not be reached: cannot connect"), "\(error.localizedDescription)")
            #expect(again.preferences.string(forKey: "theme") == "dark")
            #expect(again.counter.stringValue == "5")
            #expect(again.counter.value == 5)
            #expect(again.font.fontSize == 20)
            #expect(again.font.effectiveFontSize == 20)
            #expect(again.preferences.double(forKey: "volume") == 0.8)
            #expect(again.preferences.dictionaryRepresentation().count == 5)
            // A write cannot be made offline: it says so, and the mirror is unchanged.
            await #expect(throws: NavPrefsError.self) { try await again.preferences.onServer.set("light", forKey: "theme") }
            #expect(again.preferences.string(forKey: "theme") == "dark")
            await again.close(erasingMirror: true)
            await first.close(erasingMirror: true)
            rig.scratch.remove()
        }
    }
}
