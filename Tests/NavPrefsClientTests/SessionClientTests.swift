import Foundation
import HTTPTestClient
import NavPrefsClient
import Testing

extension ClientSuites {
    /// Navigation sessions through the library: driven on one device, followed on another.
    @Suite("Navigation sessions")
    struct SessionClientTests {
        @Test("create with a label, push, pop to a screen, set the stack; the other device's session object and list follow")
        func driveAndFollow() async throws {
            try await withRig { rig in
                let phone = try rig.profile("nav")
                let tablet = try rig.profile("nav")
                phone.start()
                tablet.start()
                #expect(await eventually { phone.isConnected && tablet.isConnected })
                let session = try await phone.sessions.create(root: NavigationScreen(id: "home", title: "Home"), label: "launch 1")
                #expect(session.stack == ["home"])
                #expect(await eventually { tablet.sessions.list.map(\.id) == [session.id] })
                #expect(tablet.sessions.list.first?.label == "launch 1")

                let mirrored = tablet.sessions.session(session.id)
                try await mirrored.reload()
                let changes = mirrored.changes()
                try await session.push(NavigationScreen(id: "detail", navigationItem: ["title": "Detail", "rightBarButtonItems": [["systemItem": "add"]]]))
                try await session.push(NavigationScreen(id: "more", title: "More"))
                #expect(await eventually { mirrored.stack == ["home", "detail", "more"] })
                var iterator = changes.makeAsyncIterator()
                #expect(await iterator.next()?["action"] == "push")

                let bar = try await mirrored.navigationBar()
                #expect(bar["title"]?["title"] == "More")
                #expect(bar["left"]?["backButton"]?["title"] == "Detail")
                try await session.pop(to: "home")
                #expect(await eventually { mirrored.stack == ["home"] && tablet.sessions.list.first?.depth == 1 })
                do throws(NavPrefsError) {
                    try await session.pop(to: "nowhere")
                    Issue.record("a pop to a screen not on the stack was accepted")
                } catch {
                    #expect(error.problem?.body["uikitMessage"] == "Tried to pop to a view controller that doesn't exist.")
                }
                try await session.setStack([NavigationScreen(id: "home"), NavigationScreen(id: "settings")])
                #expect(await eventually { mirrored.stack == ["home", "settings"] })
                let pan = PanGesture(start: (5, 300), translation: (220, 4), velocity: (900, 0), width: 390)
                #expect(try await mirrored.evaluate(pan)["operation"] == "pop")
                try await session.delete()
                #expect(await eventually { mirrored.isDeleted && tablet.sessions.list.isEmpty })
            }
        }

    }
}
