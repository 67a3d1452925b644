// The code of docs/swift-client.md, verbatim (GuideTests checks that every block of the guide and
// of README's client section is here): compiled with the tests, in Swift 6 language mode, and
// partly run against the real server by GuideTests.
import Foundation
import NavPrefsClient

func launch(token: String) async throws -> NavPrefsProfile {
    let client = NavPrefsClient(server: URL(string: "https://prefs.example.com")!, token: token)
    let profile = try client.profile("ana")
    // The mirror an earlier launch left (at once), or the server's state (as soon as it answers).
    let source = try await profile.ready()
    print("counter \(profile.counter.stringValue), from \(source == .mirror ? "the mirror" : "the server")")
    return profile
}

func settings(_ profile: NavPrefsProfile) {
    let preferences = profile.preferences
    preferences.set("dark", forKey: "theme")                  // in the mirror now; queued for the server
    preferences.set(preferences.integer(forKey: "launches") + 1, forKey: "launches")
    preferences.removeObject(forKey: "legacyFlag")
    preferences.register(defaults: ["volume": 0.8])           // the profile's defaults, on every device
    preferences.setValues(["layout": "wide", "draft": nil])   // one transaction; nil removes

    profile.counter.increment()                               // seed 000's numIndex, a step
    profile.font.setSliderValue(2.4)                          // seed 001: stored as 2, size 19

    print(preferences.string(forKey: "theme") ?? "none")      // "dark", online or not
}

func saveForSure(_ profile: NavPrefsProfile) async {
    do {
        let answer = try await profile.preferences.set("dark", forKey: "theme").confirmed()
        print("stored as version \(answer["version"]?.int64Value ?? 0)")
        let value = try await profile.counter.onServer.increment()   // sent now; throws when offline
        print("counter now \(value)")
    } catch {
        print(error.localizedDescription)                          // the server's problem detail
    }
}

@MainActor
final class ThemeModel {
    private(set) var theme = "light"
    private var observer: (any NSObjectProtocol)?

    func follow(_ profile: NavPrefsProfile) {
        observer = NotificationCenter.default.addObserver(
            forName: RemoteDefaults.conflictNotification, object: nil, queue: .main
        ) { [weak self] notification in
            let theirs = (notification.userInfo?["theirs"] as? [String: Any])?["theme"] as? String
            MainActor.assumeIsolated { self?.theme = theirs ?? "light" }
        }
        profile.preferences.set("dark", forKey: "theme", policy: .basedOnWhatISaw)
    }
}

@MainActor
final class ListViewController {
    private(set) var fontSize = 17.0
    private var observer: (any NSObjectProtocol)?

    func viewDidLoad() {
        observer = NotificationCenter.default.addObserver(forName: .doRefreshNotification, object: nil, queue: .main) { [weak self] notification in
            let size = notification.userInfo?["effectiveFontSize"] as? Double ?? 17
            MainActor.assumeIsolated { self?.fontSize = size }
        }
    }
}

@MainActor
func describe(_ status: ProfileStatus) -> String {
    switch status.connection {
    case .connected: status.pendingWrites == 0 ? "Up to date" : "Sending \(status.pendingWrites) changes"
    case .connecting: "Connecting"
    case .offline: "Offline (\(status.lastError?.localizedDescription ?? "no answer")), \(status.pendingWrites) changes waiting"
    case .stopped: "Paused"
    }
}

@MainActor
final class ThemeOrigin {
    private(set) var line = ""
    private var observer: (any NSObjectProtocol)?

    func follow(_ profile: NavPrefsProfile) {
        observer = NotificationCenter.default.addObserver(
            forName: RemoteDefaults.didChangeNotification, object: nil, queue: .main
        ) { [weak self] notification in
            let mine = notification.userInfo?["fromThisDevice"] as? Bool ?? false
            let who = (notification.userInfo?["author"] as? ChangeAuthor)?.description ?? "another device"
            MainActor.assumeIsolated { self?.line = mine ? "changed here" : "changed by \(who)" }
        }
        if let author = profile.preferences.author(forKey: "theme") {
            line = profile.preferences.isFromThisDevice(forKey: "theme") ? "changed here" : "changed by \(author)"
        }
    }
}
