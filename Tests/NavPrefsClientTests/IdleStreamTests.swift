import Foundation
import Glibc
import HTTPTestClient
import NavPrefsClient
import Testing

extension ClientSuites {
    /// An open, idle event stream costs a client process nothing on Linux (issue 22 measured
    /// 72-90 % of a core with swift-corelibs-foundation's URLSession): `navprefs-client watch`, a
    /// separate process using the library, over http and over https (nginx in front).
    @Suite("An idle event stream")
    struct IdleStreamTests {
        /// The CPU time (user + system) of process `pid` so far.
        static func cpuTime(of pid: pid_t) throws -> Duration {
            let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            // After the command name in parentheses: state is field 3, utime 14, stime 15.
            guard let close = stat.lastIndex(of: ")") else { throw TestClientError.malformed(stat) }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Int64(fields[11]), let system = Int64(fields[12]) else { throw TestClientError.malformed(stat) }
            let ticks = Int64(sysconf(Int32(_SC_CLK_TCK)))
            return .milliseconds((user + system) * 1000 / ticks)
        }

        /// Runs `navprefs-client watch` against `server`, waits until its stream is open, and
        /// measures its CPU over `window`: the share of one core.
        static func idleShare(server: String, certificate: String?, rig: ClientRig, window: Duration = .seconds(20)) async throws -> Double {
            let scratch = rig.scratch
            let output = scratch.path("watch-\(UUID().uuidString).out")
            let descriptor = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            var environment = ProcessInfo.processInfo.environment
            environment["NAVPREFS_SERVER"] = server
            environment["HOME"] = scratch.path("")
            environment["XDG_CONFIG_HOME"] = nil
            environment["SSL_CERT_FILE"] = certificate
            let watcher = try ChildProcess(ServerProcess.binary("navprefs-client"), ["watch", "idle"], environment: environment,
                                           output: descriptor, errors: descriptor)
            close(descriptor)
            defer {
                watcher.signal(SIGKILL)
                _ = watcher.wait()
            }
            // The stream is open once an event written now reaches the watcher.
            var opened = false
            for _ in 0..<20 where !opened {
                _ = try await rig.request("POST", "/v1/profiles/idle/counter/increment")
                opened = await eventually(within: .milliseconds(500)) {
                    ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains(" counter ")
                }
            }
            try #require(opened, "the watcher never connected: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
            try await Task.sleep(for: .seconds(1))  // past start-up
            let before = try cpuTime(of: watcher.pid), started = ContinuousClock.now
            try await Task.sleep(for: window)
            let used = try cpuTime(of: watcher.pid), elapsed = ContinuousClock.now - started
            #expect(watcher.isRunning, "the watcher kept running: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
            return (used - before) / elapsed
        }

        @Test("http: at most 1 % of a core over 20 s")
        func http() async throws {
            try await withRig { rig in
                let share = try await Self.idleShare(server: "http://127.0.0.1:\(rig.proxy.port)", certificate: nil, rig: rig)
                print("idle stream over http: \(String(format: "%.2f", share * 100)) % of a core over 20 s")
                #expect(share <= 0.01, "\(share * 100) % of a core")
            }
        }

        @Test("https (nginx in front): at most 1 % of a core over 20 s")
        func https() async throws {
            try await withRig { rig in
                let front = try await TLSFront(upstream: rig.server.port, scratch: rig.scratch)
                defer { front.stop() }
                let share = try await Self.idleShare(server: "https://127.0.0.1:\(front.port)", certificate: front.certificate, rig: rig)
                print("idle stream over https: \(String(format: "%.2f", share * 100)) % of a core over 20 s")
                #expect(share <= 0.01, "\(share * 100) % of a core")

                // Writes over https too, on kept-alive connections: queued, sent, counted once.
                let before = try await rig.request("GET", "/v1/profiles/idle/counter").int("value") ?? 0
                var environment = ProcessInfo.processInfo.environment
                environment["NAVPREFS_SERVER"] = "https://127.0.0.1:\(front.port)"
                environment["HOME"] = rig.scratch.path("")
                environment["XDG_CONFIG_HOME"] = nil
                environment["SSL_CERT_FILE"] = front.certificate
                let prepared = environment
                let run = try await onOwnThread { try runToEnd(ServerProcess.binary("navprefs-client"), ["increment", "idle", "5"], environment: prepared) }
                #expect(run == (0, "\(before + 5)\n"))
                #expect(try await rig.request("GET", "/v1/profiles/idle/counter").int("value") == before + 5)

                // A certificate nobody vouches for is refused.
                environment["SSL_CERT_FILE"] = "/dev/null"
                let untrusting = environment
                let refused = try await onOwnThread { try runToEnd(ServerProcess.binary("navprefs-client"), ["set", "idle", "tls", "1"], environment: untrusting) }
                #expect(refused.status == 3, "the server counts as unreachable")
            }
        }
    }
}
