import Foundation
import HTTPTestClient
import NavPrefsClient
import Testing

extension ClientSuites {
    /// Local-first writes (issue 22): synchronous like `UserDefaults`, in the mirror at once,
    /// durable in the outbox, sent in order whenever the server can be reached, each applied once.
    @Suite("Local-first writes")
    struct LocalFirstWriteTests {
        /// How many events the server's log holds for `profile` (each applied write logs one).
        static func loggedEvents(_ rig: ClientRig, _ profile: String) async throws -> Int64? {
            try JSON(parsing: try await rig.request("GET", "/v1/profiles/\(profile)/state").text)["lastEventId"]?.int64Value
        }

        static func counter(_ rig: ClientRig, _ profile: String) async throws -> Int64? {
            try await rig.request("GET", "/v1/profiles/\(profile)/counter").int("value")
        }

        static func goOffline(_ rig: ClientRig) {
            rig.proxy.route(to: [])
            rig.proxy.cutAll()
        }

        @Test("offline: set returns in under 1 ms and getters answer it; back online the outbox drains within 1 s, each write applied once")
        func offlineThenBack() async throws {
            try await withRig { rig in
                let profile = try rig.profile("offline")
                profile.start()
                #expect(await eventually { profile.isConnected })
                Self.goOffline(rig)
                var took: [Duration] = []
                for index in 0..<100 {
                    let started = ContinuousClock.now
                    profile.preferences.set(index, forKey: "key\(index % 10)")
                    took.append(ContinuousClock.now - started)
                    #expect(profile.preferences.integer(forKey: "key\(index % 10)") == index)
                }
                took.sort()
                let median = took[took.count / 2], p90 = took[took.count * 9 / 10], p99 = took[took.count * 99 / 100]
                print("offline set: median \(median), p90 \(p90), p99 \(p99), max \(took.last ?? .zero) over 100 calls")
                #expect(median < .milliseconds(1) && p90 < .milliseconds(1), "median \(median), p90 \(p90)")
                #expect(profile.pendingWrites == 100)
                #expect(await eventually { profile.connection == .offline && profile.lastError != nil }, "the outage is visible")

                rig.proxy.route(to: [rig.server.port])
                let back = ContinuousClock.now
                #expect(await eventually(within: .seconds(5)) { profile.pendingWrites == 0 })
                let drained = ContinuousClock.now - back
                print("outbox of 100 drained \(drained) after the server was reachable again")
                #expect(drained < .seconds(1))
                #expect(try await Self.loggedEvents(rig, "offline") == 100, "every write applied exactly once")
                let values = try JSON(parsing: try await rig.request("GET", "/v1/profiles/offline/preferences").text)["values"]
                for key in 0..<10 { #expect(values?["key\(key)"] == .integer(Int64(90 + key)), "last writer wins, in order") }
                for key in 0..<10 { #expect(profile.preferences.integer(forKey: "key\(key)") == 90 + key) }
            }
        }

        @Test("a local font change posts doRefreshNotification once: at the change, not again when the server answers or the stream repeats it")
        func oneRefreshPerLocalChange() async throws {
            try await withRig { rig in
                let center = NotificationCenter()
                let profile = try rig.profile("refresh-once", center: center)
                let refreshes = NotificationLog(.doRefreshNotification, on: center)
                #expect(try await profile.ready() == .server)
                #expect(await eventually { profile.isConnected })
                profile.font.setSliderValue(2.4)
                #expect(refreshes.count == 1, "posted by the call itself, as UserDefaults posts")
                #expect(refreshes.last?["fontSize"] as? Double == 19)
                #expect(await eventually { profile.pendingWrites == 0 })
                try await Task.sleep(for: .milliseconds(300))  // the write's event comes back on the stream
                #expect(refreshes.count == 1, "the answer and the event say what the mirror already showed")
                // Another device's change is announced, once.
                _ = try await rig.request("PUT", "/v1/profiles/refresh-once/font", json: #"{"sliderValue": 5}"#)
                #expect(await eventually { refreshes.count == 2 })
                try await Task.sleep(for: .milliseconds(300))
                #expect(refreshes.count == 2)
                #expect(refreshes.last?["fontSize"] as? Double == 22)
            }
        }

        @Test("setValues and register(defaults:) replace a dictionary, as UserDefaults does (the server merges patches at every depth)")
        func dictionariesReplace() async throws {
            try await withRig { rig in
                let profile = try rig.profile("dicts")
                profile.start()
                #expect(await eventually { profile.isConnected })
                let first: JSON = .object([.init("a", .integer(1)), .init("b", .object([.init("c", .integer(2)), .init("d", .integer(3))]))])
                _ = try await profile.preferences.setValues(["layout": first]).confirmed()
                let second: JSON = .object([.init("b", .object([.init("c", .integer(5))]))])
                _ = try await profile.preferences.setValues(["layout": second]).confirmed()
                let stored = try JSON(parsing: try await rig.request("GET", "/v1/profiles/dicts/preferences/layout").text)["value"]
                #expect(stored == second, "the server holds exactly the new dictionary: \(String(describing: stored))")
                _ = try await profile.preferences.register(defaults: ["panel": first]).confirmed()
                _ = try await profile.preferences.register(defaults: ["panel": second]).confirmed()
                let registered = try JSON(parsing: try await rig.request("GET", "/v1/profiles/dicts/defaults").text)["values"]?["panel"]
                #expect(registered == second, "the registered dictionary is the new one: \(String(describing: registered))")
            }
        }

        @Test("the proxy drops answers: every queued write is applied exactly once")
        func lostAnswers() async throws {
            try await withRig { rig in
                let profile = try rig.profile("lossy")
                profile.start()
                #expect(await eventually { profile.isConnected })
                rig.proxy.loseAnswers(8)
                for index in 0..<30 { profile.counter.increment(); if index % 3 == 0 { profile.preferences.set("v\(index)", forKey: "text") } }
                #expect(await eventually(within: .seconds(20)) { profile.pendingWrites == 0 })
                #expect(try await Self.counter(rig, "lossy") == 30)
                #expect(try await Self.loggedEvents(rig, "lossy") == 40, "30 increments and 10 sets, none twice")
                #expect(await eventually { profile.counter.value == 30 && profile.preferences.string(forKey: "text") == "v27" })
            }
        }

        @Test("two clients increment 100 times each while offline: the server's counter is exactly +200")
        func twoOfflineClients() async throws {
            try await withRig { rig in
                _ = try await rig.request("POST", "/v1/profiles/shared/counter/increment", json: #"{"by": 5}"#)
                let phone = try rig.profile("shared"), tablet = try rig.profile("shared")
                phone.start()
                tablet.start()
                #expect(await eventually { phone.isConnected && tablet.isConnected && phone.counter.value == 5 && tablet.counter.value == 5 })
                Self.goOffline(rig)
                for _ in 0..<100 {
                    phone.counter.increment()
                    tablet.counter.increment()
                }
                #expect(phone.counter.value == 105 && tablet.counter.value == 105, "each device counts its own steps at once")
                rig.proxy.route(to: [rig.server.port])
                #expect(await eventually(within: .seconds(10)) { phone.pendingWrites == 0 && tablet.pendingWrites == 0 })
                #expect(try await Self.counter(rig, "shared") == 205)
                #expect(await eventually { phone.counter.value == 205 && tablet.counter.value == 205 }, "\(phone.counter.value) \(tablet.counter.value)")
            }
        }

        @Test("a write based on what this device saw, overtaken by another device: the server's value in the mirror, one conflict notification")
        func conflict() async throws {
            try await withRig { rig in
                let center = NotificationCenter()
                let conflicts = NotificationLog(RemoteDefaults.conflictNotification, on: center)
                let phone = try rig.profile("conflict", center: center)
                _ = try await rig.request("PUT", "/v1/profiles/conflict/preferences/theme", json: #"{"value": "light"}"#)
                phone.start()
                #expect(await eventually { phone.isConnected && phone.preferences.string(forKey: "theme") == "light" })
                Self.goOffline(rig)
                let write = phone.preferences.set("dark", forKey: "theme", policy: .basedOnWhatISaw)
                phone.preferences.set("wide", forKey: "layout")  // last writer wins: goes through
                #expect(phone.preferences.string(forKey: "theme") == "dark")
                _ = try await rig.request("PUT", "/v1/profiles/conflict/preferences/theme", json: #"{"value": "sepia"}"#)  // another device
                rig.proxy.route(to: [rig.server.port])
                do throws(NavPrefsError) {
                    try await write.confirmed()
                    Issue.record("an overtaken write was accepted")
                } catch {
                    guard case .preconditionFailed = error else { throw error }
                }
                #expect(phone.preferences.string(forKey: "theme") == "sepia", "the server's value")
                #expect(await eventually { phone.pendingWrites == 0 })
                #expect(conflicts.count == 1)
                let info = conflicts.last
                #expect(info?["keys"] as? [String] == ["theme"])
                #expect((info?["mine"] as? [String: Any])?["theme"] as? String == "dark")
                #expect((info?["theirs"] as? [String: Any])?["theme"] as? String == "sepia")
                #expect(try await rig.request("GET", "/v1/profiles/conflict/preferences/layout").text.contains(#""wide""#))
                try await Task.sleep(for: .milliseconds(300))
                #expect(conflicts.count == 1, "exactly one")
                #expect(phone.preferences.string(forKey: "theme") == "sepia")
            }
        }

        @Test("a write the server refuses for good leaves the mirror, is announced, and says why in the server's words")
        func rejected() async throws {
            try await withRig { rig in
                let center = NotificationCenter()
                let rejections = NotificationLog(RemoteDefaults.writeRejectedNotification, on: center)
                let profile = try rig.profile("reject", center: center)
                profile.start()
                let write = profile.preferences.set("one", forKey: "numIndex")
                #expect(profile.counter.stringValue == "one", "in the mirror at once")
                do throws(NavPrefsError) {
                    try await write.confirmed()
                    Issue.record("a value the counter cannot take was accepted")
                } catch {
                    #expect(error.problem?.status == 422)
                    #expect(error.localizedDescription.contains("must be an integer"), "\(error.localizedDescription)")
                }
                #expect(profile.counter.stringValue == "0", "the refused value left the mirror")
                #expect(await eventually { rejections.count == 1 })
            }
        }

        @Test("queued writes outlive the profile object: the next one shows and sends them")
        func relaunch() async throws {
            try await withRig { rig in
                let suite = "navprefs-test-\(UUID().uuidString)"
                Self.goOffline(rig)
                let first = try rig.profile("relaunch", suite: suite)
                first.start()
                first.preferences.set("queued", forKey: "note")
                first.counter.increment(by: 4)
                await first.stop()
                let second = try rig.profile("relaunch", suite: suite)
                #expect(second.pendingWrites == 2)
                #expect(second.preferences.string(forKey: "note") == "queued" && second.counter.value == 4)
                rig.proxy.route(to: [rig.server.port])
                second.start()
                #expect(await eventually { second.pendingWrites == 0 })
                #expect(try await Self.counter(rig, "relaunch") == 4)
                #expect(try await Self.loggedEvents(rig, "relaunch") == 2)
            }
        }

        @Test("navprefs-client killed with SIGKILL in the middle of draining, three times: the counter is exactly right")
        func killedMidDrain() async throws {
            try await withRig { rig in
                let home = rig.scratch.path("home")
                try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
                var environment = ProcessInfo.processInfo.environment
                environment["NAVPREFS_SERVER"] = "http://127.0.0.1:\(rig.proxy.port)"
                environment["HOME"] = home
                environment["XDG_CONFIG_HOME"] = nil
                var killedAt: [Int64] = []
                for round in 0..<3 {
                    let child = try ChildProcess(ServerProcess.binary("navprefs-client"), ["increment", "killed", "100"], environment: environment,
                                                 output: 2, errors: 2)
                    let target = Int64(round * 100 + 20)
                    #expect(await eventually(within: .seconds(20)) { ((try? await Self.counter(rig, "killed")) ?? 0) >= target })
                    child.signal(SIGKILL)
                    _ = child.wait()
                    killedAt.append(try await Self.counter(rig, "killed") ?? 0)
                }
                print("navprefs-client killed at counter \(killedAt)")
                let prepared = environment
                for (round, count) in killedAt.enumerated() { #expect(count < Int64((round + 1) * 100), "killed with writes still queued") }
                let rest = try await onOwnThread { try runToEnd(ServerProcess.binary("navprefs-client"), ["increment", "killed", "0"], environment: prepared) }
                #expect(rest == (0, "300\n"))
                #expect(try await Self.counter(rig, "killed") == 300)
                #expect(try await Self.loggedEvents(rig, "killed") == 300, "no increment applied twice")
            }
        }
    }
}
