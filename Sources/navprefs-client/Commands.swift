import Foundation
import NavPrefsClient

/// The three commands, each a few calls of the library.
enum Commands {
    /// Prints `key`'s value: read from the server now, or, when it cannot be reached, from the
    /// mirror an earlier run left (offline), saying so on standard error.
    static func get(_ client: NavPrefsClient, profile name: String, key: String, as getter: String) async -> Int32 {
        let profile: NavPrefsProfile
        do {
            profile = try client.profile(name, options: ProfileOptions(notificationDelivery: .immediately))
        } catch {
            return report(error)
        }
        do {
            try await profile.reload()
        } catch {
            guard profile.isLoaded else { return report(error) }
            note("offline (\(error)); the last known state of \(name) (event \(profile.lastEventID))")
        }
        let defaults = profile.preferences
        let answer: String?
        switch getter {
        case "object": answer = defaults.value(forKey: key)?.jsonText
        case "string": answer = defaults.string(forKey: key).map { JSON.string($0).jsonText }
        case "integer": answer = String(defaults.integer(forKey: key))
        case "float": answer = String(defaults.float(forKey: key))
        case "double": answer = String(defaults.double(forKey: key))
        case "bool": answer = String(defaults.bool(forKey: key))
        case "array", "dictionary", "stringArray":
            answer = defaults.value(forKey: key).flatMap { value in
                switch (getter, value) {
                case ("array", .array), ("dictionary", .object): value.jsonText
                case ("stringArray", .array(let items)) where items.allSatisfy({ $0.stringValue != nil }): value.jsonText
                default: nil
                }
            }
        case "url": answer = defaults.url(forKey: key).map { JSON.string($0.absoluteString).jsonText }
        default: return ClientCommand.fail("unknown getter '\(getter)'")
        }
        guard let answer else {
            note("no value for '\(key)'")
            return 1
        }
        print(answer)
        return 0
    }

    /// Stores `json` under `key`, based on the version the server has now: if another write
    /// comes between the read and this one, it is refused (412), never overwritten.
    static func set(_ client: NavPrefsClient, profile name: String, key: String, json text: String) async -> Int32 {
        let value: JSON
        do {
            value = try JSON(parsing: text)
        } catch {
            return ClientCommand.fail("'\(text.prefix(40))' is not JSON (quote strings: '\"dark\"')")
        }
        do {
            let profile = try client.profile(name, options: ProfileOptions(notificationDelivery: .immediately))
            try await profile.reload()
            let version = try await profile.preferences.onServer.set(value, forKey: key)
            print(JSON.object([.init("key", .string(key)), .init("value", profile.preferences.value(forKey: key) ?? value),
                               .init("version", .integer(version))]).jsonText)
            return 0
        } catch {
            return report(error)
        }
    }

    /// Prints every event of the profile as it comes, one line each (`id type data`); the
    /// library reconnects after a drop or a server restart and resumes after the last event
    /// printed, also across runs of this command (the mirror keeps the position).
    static func watch(_ client: NavPrefsClient, profile name: String) async -> Int32 {
        let profile: NavPrefsProfile
        do {
            profile = try client.profile(name, options: ProfileOptions(notificationDelivery: .immediately))
        } catch {
            return report(error)
        }
        let events = profile.events()
        profile.start()
        note("watching \(name) after event \(profile.lastEventID)")
        for await event in events {
            // Written at once, not through print's buffer: a reader on a pipe waits for each line.
            FileHandle.standardOutput.write(Data("\(event.id.map(String.init) ?? "-") \(event.type) \(event.data.jsonText)\n".utf8))
        }
        return 0
    }

    /// Queues `count` increments at once (each in the outbox before the next), then sends them
    /// and whatever an earlier run left queued, and prints the counter once nothing is queued.
    /// Killed half-way, the next run sends the rest, each increment applied exactly once.
    static func increment(_ client: NavPrefsClient, profile name: String, count: Int) async -> Int32 {
        do {
            let profile = try client.profile(name, options: ProfileOptions(notificationDelivery: .immediately))
            for _ in 0..<count { profile.counter.increment() }
            note("queued \(count); \(profile.pendingWrites) to send")
            profile.start()
            while profile.pendingWrites > 0 { try? await Task.sleep(for: .milliseconds(10)) }
            await profile.stop()
            print(profile.counter.stringValue)
            return 0
        } catch {
            return report(error)
        }
    }

    private static func report(_ error: NavPrefsError) -> Int32 {
        note(error.description)
        if case .transport = error { return 3 }
        return 1
    }

    private static func note(_ message: String) {
        FileHandle.standardError.write(Data("navprefs-client: \(message)\n".utf8))
    }
}
