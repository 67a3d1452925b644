import Foundation
import HTTPTestClient
import NavPrefsClient
import Testing

extension ClientSuites {
    /// Two devices on one profile: what one writes reaches the other's mirror and notifications,
    /// and a write based on a stale version is refused, never applied over the other's.
    @Suite("Two clients of one profile")
    struct CrossClientTests {
        @Test("a font change on one device posts doRefreshNotification once on each, and the other's mirror reads it")
        func refreshReachesTheOtherDevice() async throws {
            try await withRig { rig in
                let (phoneCenter, tabletCenter) = (NotificationCenter(), NotificationCenter())
                let phone = try rig.profile("family", center: phoneCenter)
                let tablet = try rig.profile("family", center: tabletCenter)
                let phoneRefreshes = NotificationLog(.doRefreshNotification, on: phoneCenter)
                let tabletRefreshes = NotificationLog(.doRefreshNotification, on: tabletCenter)
                let tabletChanges = NotificationLog(RemoteDefaults.didChangeNotification, on: tabletCenter)
                phone.start()
                tablet.start()
                #expect(await eventually { phone.isConnected && tablet.isConnected })

                try await phone.font.onServer.setSliderValue(4.4)
                #expect(phone.font.fontSize == 21, "the writer's mirror has its own write when the call returns")
                #expect(await eventually { tablet.font.fontSize == 21 })
                #expect(tablet.font.sliderValue == 4)
                #expect(tablet.font.effectiveFontSize == 21)
                #expect(await eventually { tabletRefreshes.count == 1 })
                #expect(tabletRefreshes.last?["fontSize"] as? Double == 21)
                #expect(tabletChanges.count >= 1)
                try await Task.sleep(for: .milliseconds(300))
                #expect(phoneRefreshes.count == 1, "its own write's event, come back on the stream, is not announced again")
                #expect(tabletRefreshes.count == 1)

                // Any key reaches the other mirror, and its change stream.
                let changes = tablet.preferences.changes(forKey: "theme")
                try await phone.preferences.onServer.set("dark", forKey: "theme")
                var iterator = changes.makeAsyncIterator()
                let change = await iterator.next()
                #expect(change?.value == "dark")
                #expect(tablet.preferences.string(forKey: "theme") == "dark")
                #expect(tablet.preferences.version(forKey: "theme") == phone.preferences.version(forKey: "theme"))
            }
        }

        @Test("a write based on a version another device has replaced is refused with 412, and nothing is overwritten")
        func concurrentWriteIsReported() async throws {
            try await withRig { rig in
                let phone = try rig.profile("race")
                let tablet = try rig.profile("race")
                try await phone.preferences.onServer.set("light", forKey: "theme")
                // The tablet read the state, then went quiet (not following): its mirror stays at "light".
                try await tablet.reload()
                try await phone.preferences.onServer.set("dark", forKey: "theme")
                do throws(NavPrefsError) {
                    try await tablet.preferences.onServer.set("sepia", forKey: "theme")
                    Issue.record("a stale write was accepted")
                } catch {
                    guard case .preconditionFailed(let current, let problem) = error else {
                        Issue.record("expected preconditionFailed, got \(error)")
                        return
                    }
                    #expect(current == 2)
                    #expect(problem.type == "urn:navprefs:problem:precondition-failed")
                }
                #expect(try await rig.request("GET", "/v1/profiles/race/preferences/theme").text.contains("\"dark\""))
                #expect(tablet.preferences.string(forKey: "theme") == "light", "a refused write leaves the mirror alone")
                // The same holds for removals, defaults and multi-key writes based on stale versions.
                await #expect(throws: NavPrefsError.self) { try await tablet.preferences.onServer.removeObject(forKey: "theme") }
                await #expect(throws: NavPrefsError.self) { try await tablet.preferences.onServer.setValues(["theme": "x", "other": nil]) }
                try await tablet.reload()
                try await tablet.preferences.onServer.setValues(["theme": "sepia", "volume": 0.5])
                #expect(tablet.preferences.string(forKey: "theme") == "sepia")
                #expect(tablet.preferences.double(forKey: "volume") == 0.5)
            }
        }

        @Test("a dictionary changed on one device arrives on the other as a merge patch, applied to the value it was made from")
        func mergePatchReachesTheOtherDevice() async throws {
            try await withRig { rig in
                let phone = try rig.profile("layouts")
                let tablet = try rig.profile("layouts")
                phone.start()
                tablet.start()
                #expect(await eventually { phone.isConnected && tablet.isConnected })
                let first: JSON = .object([.init("a", .integer(1)), .init("b", .object([.init("c", .integer(2)), .init("d", .integer(3))]))])
                let second: JSON = .object([.init("a", .integer(1)), .init("b", .object([.init("c", .integer(5))])), .init("e", "new")])
                // The library sends the merge patch that turns the first dictionary into the second.
                _ = try await phone.preferences.setValues(["layout": first]).confirmed()
                _ = try await phone.preferences.setValues(["layout": second]).confirmed()
                #expect(phone.preferences.value(forKey: "layout") == second, "the writer's mirror applied its own answer's patch")
                let events = try JSON(parsing: try await rig.request("GET", "/v1/profiles/layouts/events?after=1",
                                                                     headers: [("Accept", "application/json")]).text)["events"]
                #expect(events?[0]?["data"]?["patch"] != nil, "the second write logged a patch: \(String(describing: events))")
                #expect(await eventually { tablet.preferences.value(forKey: "layout") == second })
                #expect(tablet.preferences.version(forKey: "layout") == phone.preferences.version(forKey: "layout"))
            }
        }

        @Test("a patch made from a version the mirror does not hold (its own defaults write came first) makes it read the state again")
        func patchFromAnotherVersionReloads() async throws {
            try await withRig { rig in
                let tablet = try rig.profile("stale")
                _ = try await rig.request("PUT", "/v1/profiles/stale/defaults", json: #"{"panel":{"a":1}}"#)
                try await tablet.reload()
                // Another client merges into the default (version 1); the tablet does not follow yet.
                _ = try await rig.request("PATCH", "/v1/profiles/stale/preferences", json: #"{"panel":{"b":2}}"#)
                // The tablet's own defaults write (version 3) is applied from its answer, ahead of the stream.
                try await tablet.preferences.onServer.register(defaults: ["other": 1])
                tablet.start()
                let expected: JSON = .object([.init("a", .integer(1)), .init("b", .integer(2))])
                let reloaded = await eventually { tablet.preferences.value(forKey: "panel") == expected }
                let state = try await rig.request("GET", "/v1/profiles/stale/state").text
                #expect(reloaded, "\(String(describing: tablet.preferences.value(forKey: "panel"))) \(state)")
                #expect(tablet.preferences.integer(forKey: "other") == 1)
            }
        }

        @Test("counter: typed calls on one device, the seed's string on the other; sets need the current version")
        func counter() async throws {
            try await withRig { rig in
                let phone = try rig.profile("counting")
                let tablet = try rig.profile("counting")
                phone.start()
                tablet.start()
                #expect(try await phone.counter.onServer.increment() == 1)
                #expect(try await phone.counter.onServer.increment(by: 5) == 6)
                #expect(try await phone.counter.onServer.decrement() == 5)
                #expect(await eventually { tablet.counter.stringValue == "5" })
                #expect(tablet.counter.value == 5)
                #expect(tablet.preferences.integer(forKey: "numIndex") == 5)
                #expect(try await tablet.counter.onServer.reset() == 0)
                #expect(await eventually { phone.counter.value == 0 })
                #expect(try await phone.counter.onServer.set(41) == 41)
            }
        }
    }
}
