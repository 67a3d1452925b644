import Foundation
import HTTPTestClient
import NavPrefsClient
import Testing

extension ClientSuites {
    /// Who changed what (issue 36), as the library sees it: each device's writes carry its name,
    /// the other device learns who changed a key, and notifications tell this device's own
    /// changes from others'.
    @Suite("Who changed what, on the client")
    struct AuthorClientTests {
        @Test("each device's writes carry its name; the other knows who changed a key and tells its own changes from another's")
        func authorsAcrossDevices() async throws {
            try await withRig { rig in
                let (phoneCenter, tabletCenter) = (NotificationCenter(), NotificationCenter())
                let suite = "navprefs-test-\(UUID().uuidString)"
                let phone = try rig.profile("authors", center: phoneCenter, deviceName: "Ana’s iPhone")
                let tablet = try rig.profile("authors", suite: suite, center: tabletCenter, deviceName: "kitchen-ipad")
                let phoneChanges = NotificationLog(RemoteDefaults.didChangeNotification, on: phoneCenter)
                let tabletChanges = NotificationLog(RemoteDefaults.didChangeNotification, on: tabletCenter)
                let tabletRefreshes = NotificationLog(.doRefreshNotification, on: tabletCenter)
                phone.start()
                tablet.start()
                #expect(await eventually { phone.isConnected && tablet.isConnected })
                let seen = tablet.preferences.changes(forKey: "theme")

                phone.preferences.set("dark", forKey: "theme")
                #expect(phoneChanges.last?["fromThisDevice"] as? Bool == true, "a local write is this device's")
                #expect(phone.preferences.isFromThisDevice(forKey: "theme"))
                var iterator = seen.makeAsyncIterator()
                let change = await iterator.next()
                #expect(change?.value == "dark")
                #expect(change?.isFromThisDevice == false)
                #expect(change?.author == ChangeAuthor(token: "open", device: "Ana’s iPhone"))
                #expect(await eventually { tabletChanges.last?["fromThisDevice"] as? Bool == false })
                #expect((tabletChanges.last?["author"] as? ChangeAuthor)?.device == "Ana’s iPhone")
                #expect(tablet.preferences.author(forKey: "theme")?.device == "Ana’s iPhone")
                #expect(!tablet.preferences.isFromThisDevice(forKey: "theme"))
                // Once answered, the phone's mirror keeps its own write as its own.
                #expect(await eventually { phone.pendingWrites == 0 })
                #expect(phone.preferences.author(forKey: "theme") == ChangeAuthor(token: "open", device: "Ana’s iPhone"))

                // The font from the tablet: the phone's doRefreshNotification says whose it was.
                let phoneRefreshes = NotificationLog(.doRefreshNotification, on: phoneCenter)
                try await tablet.font.onServer.setSliderValue(3)
                // Its own write's answer and its event on the stream race; whichever applies, it is this device's.
                #expect(await eventually { tabletRefreshes.last?["fromThisDevice"] as? Bool == true })
                #expect(await eventually { phoneRefreshes.count == 1 })
                #expect(phoneRefreshes.last?["fromThisDevice"] as? Bool == false)
                #expect((phoneRefreshes.last?["author"] as? ChangeAuthor)?.device == "kitchen-ipad")
                #expect(phone.preferences.author(forKey: "fontSizekey")?.device == "kitchen-ipad")

                // The server recorded both names; a client that reads the state learns them too,
                // and the mirror keeps them across a relaunch.
                let history = try await rig.request("GET", "/v1/profiles/authors/preferences/theme/history")
                #expect(history.text.contains(#""author":{"token":"open","device":"Ana’s iPhone"}"#), "\(history.text)")
                let late = try rig.profile("authors", deviceName: "")
                try await late.reload()
                #expect(late.preferences.author(forKey: "theme")?.device == "Ana’s iPhone")
                #expect(late.preferences.author(forKey: "sliderValuekey")?.device == "kitchen-ipad")
                await tablet.close()
                let relaunched = try rig.profile("authors", suite: suite, deviceName: "kitchen-ipad")
                #expect(try await relaunched.ready() == .mirror)
                #expect(relaunched.preferences.author(forKey: "theme")?.device == "Ana’s iPhone")
                #expect(relaunched.preferences.isFromThisDevice(forKey: "fontSizekey"))
            }
        }

        @Test("by default a client names its host; a name is cut to what the server takes; an empty one names none")
        func deviceNames() async throws {
            let server = URL(string: "http://127.0.0.1:1")!
            let host = NavPrefsClient(server: server).deviceName
            #expect(host != nil && host.map { ProcessInfo.processInfo.hostName.hasPrefix($0) } == true)
            #expect(NavPrefsClient(server: server, deviceName: "tab\there\n").deviceName == "tabhere")
            #expect(NavPrefsClient(server: server, deviceName: String(repeating: "é", count: 80)).deviceName == String(repeating: "é", count: 64))
            #expect(NavPrefsClient(server: server, deviceName: "").deviceName == nil)
            try await withRig { rig in
                let profile = try rig.profile("hostname")
                try await profile.counter.onServer.increment()
                let history = try await rig.request("GET", "/v1/profiles/hostname/counter/history")
                #expect(history.text.contains(#""device":"\#(host ?? "")""#), "\(history.text)")
            }
        }
    }
}
