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
