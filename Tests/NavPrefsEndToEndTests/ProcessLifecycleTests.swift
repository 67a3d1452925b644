import Foundation
import HTTPTestClient
import Synchronization
import Testing

/// The executable as operators and scripts use it: flags, environment, signals, exit codes.
@Suite("navprefs process: configuration, signals, exit codes")
struct ProcessLifecycleTests {
    @Test("SIGTERM and SIGINT stop it cleanly: requests in flight are answered, writes kept, exit 0",
          arguments: [SIGTERM, SIGINT])
    func gracefulStop(signal: Int32) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("stop.sqlite")
        let (service, port) = try await ServiceProcess.start(database: database)
        let acknowledged = Atomic<Int>(0)
        let failures = Mutex<[Int]>([])
        let clients = TestHTTP.startThreads(4) { _ in
            guard let connection = try? TestConnection(port: port) else { return }
            for _ in 0..<10_000 {
                guard let response = try? connection.request("POST", "/v1/profiles/stop/counter/increment") else { return }
                if response.status == 200 { acknowledged.add(1, ordering: .relaxed) } else {
                    failures.withLock { $0.append(response.status) }
                    return
                }
                if response.header("Connection")?.lowercased() == "close" { return }
            }
        }
        while acknowledged.load(ordering: .relaxed) < 50 { try await Task.sleep(for: .milliseconds(5)) }
        service.send(signal)
        #expect(await service.waitForExit() == 0)
        for client in clients { try await client.value }
        #expect(failures.withLock { $0 }.allSatisfy { $0 == 503 }, "only 'shutting down' refusals are acceptable")
        #expect(service.standardOutput.contains("\"msg\":\"stopped\""))

        let (restarted, newPort) = try await ServiceProcess.start(database: database)
        let value = try await TestHTTP.request(port: newPort, "GET", "/v1/profiles/stop/counter").int("value") ?? -1
        #expect(value == Int64(acknowledged.load(ordering: .relaxed)), "an answered write was lost or an unanswered one kept")
        restarted.send(SIGTERM)
        #expect(await restarted.waitForExit() == 0)
    }

    @Test("after SIGTERM, /readyz answers 503 while the listener still serves /healthz, then the process exits 0")
    func readinessDrain() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (service, port) = try await ServiceProcess.start(database: scratch.path("drain.sqlite"), extra: ["--readiness-drain", "4"])
        #expect(try await TestHTTP.request(port: port, "GET", "/readyz").status == 200)
        let signalled = ContinuousClock.now
        service.send(SIGTERM)
        var readiness = 200
        // The signal is handled within moments; 3 s of the 4 s drain leave room for a loaded machine.
        while readiness == 200, ContinuousClock.now - signalled < .seconds(3) {
            readiness = try await TestHTTP.request(port: port, "GET", "/readyz").status
        }
        #expect(readiness == 503)
        #expect(try await TestHTTP.request(port: port, "GET", "/healthz").status == 200, "the listener is still open")
        #expect(await service.waitForExit() == 0)
        #expect(ContinuousClock.now - signalled >= .seconds(4), "the drain lasts what --readiness-drain says")
    }

    @Test("--help prints the options and exits 0")
    func help() async throws {
        let service = try ServiceProcess(["--help"])
        #expect(await service.waitForExit() == 0)
        for option in ["--host", "--port", "--database", "DATABASE_URL", "--sqlite-synchronous", "--max-body-bytes"] {
            #expect(service.standardOutput.contains(option))
        }
    }

    @Test("an invalid setting is refused at start with one line naming it, exit 2", arguments: [
        (["--port", "70000"], [String: String](), "--port"),
        (["--port"], [:], "--port"),
        (["--nonsense", "1"], [:], "--nonsense"),
        ([], ["PORT": "eighty"], "PORT"),
        ([], ["DATABASE_URL": "mysql://x"], "database URL"),
        (["--sqlite-synchronous", "off"], [:], "--sqlite-synchronous"),
        (["--log-level", "loud"], [:], "--log-level"),
    ])
    func invalidSettings(arguments: [String], environment: [String: String], mention: String) async throws {
        let service = try ServiceProcess(arguments, environment: environment)
        #expect(await service.waitForExit() == 2)
        let firstLine = service.standardError.split(separator: "\n").first.map(String.init) ?? ""
        #expect(firstLine.contains(mention), "stderr: \(service.standardError)")
        #expect(!service.standardError.contains("secret"))
    }

    @Test("an unreachable PostgreSQL stops the start with exit 1, a line naming it, and no password in any log")
    func unreachablePostgres() async throws {
        // Port 1 on loopback: nothing listens there, so libpq fails at once without DNS.
        let service = try ServiceProcess(["--port", "0", "--database", "postgresql://u:pw4242xyz@127.0.0.1:1/x?connect_timeout=2&sslpassword=ssl4242xyz"])
        #expect(await service.waitForExit() == 1)
        // Logs are JSON lines on standard output.
        #expect(service.standardOutput.contains("PostgreSQL is unreachable"), "stdout: \(service.standardOutput)")
        #expect(service.standardOutput.contains("u:***@127.0.0.1:1/x"))
        #expect(!service.standardOutput.contains("pw4242xyz") && !service.standardError.contains("pw4242xyz"))
        // Every secret parameter is masked, the TLS key's passphrase too (issue 32).
        #expect(service.standardOutput.contains("sslpassword=***"), "stdout: \(service.standardOutput)")
        #expect(!service.standardOutput.contains("ssl4242xyz") && !service.standardError.contains("ssl4242xyz"))
    }

    @Test("libpq's keyword form with several hosts is accepted: unreachable, it stops the start with exit 1 and hides the quoted password")
    func unreachablePostgresKeywords() async throws {
        // Both hosts refuse at once (ports 1 and 2 on loopback): libpq tries each in turn.
        let conninfo = "host=127.0.0.1,127.0.0.1 port=1,2 user=u password='pw 4242\\'xyz' sslpassword=ssl4242 dbname=x connect_timeout=2 target_session_attrs=read-write"
        let service = try ServiceProcess(["--port", "0", "--database", conninfo])
        #expect(await service.waitForExit() == 1)
        #expect(service.standardOutput.contains("PostgreSQL is unreachable"), "stdout: \(service.standardOutput)")
        #expect(service.standardOutput.contains("user=u password=*** sslpassword=*** dbname=x"), "stdout: \(service.standardOutput)")
        #expect(!service.standardOutput.contains("4242") && !service.standardError.contains("4242"))
    }

    @Test("flags win over the environment")
    func flagsWin() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (service, port) = try await ServiceProcess.start(
            database: scratch.path("flags.sqlite"), extra: ["--host", "127.0.0.1"],
            environment: ["PORT": "1", "HOST": "no-such-host.invalid", "LOG_FORMAT": "text"])
        #expect(try await TestHTTP.request(port: port, "GET", "/healthz").status == 200)
        #expect(service.standardOutput.contains(" INFO listening "), "LOG_FORMAT from the environment applies")
        service.send(SIGTERM)
        #expect(await service.waitForExit() == 0)
    }

    @Test("DATABASE_URL chooses the file; a second instance on the same file is refused with exit 1")
    func exclusiveDatabase() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let database = scratch.path("shared.sqlite")
        let first = try ServiceProcess(["--port", "0"], environment: ["DATABASE_URL": "sqlite:" + database])
        _ = try await first.listeningPort()
        #expect(FileManager.default.fileExists(atPath: database))
        let second = try ServiceProcess(["--port", "0", "--database", "sqlite:" + database])
        #expect(await second.waitForExit() == 1)
        #expect(second.standardOutput.contains("in use by another NavPrefs process"))
        first.send(SIGTERM)
        #expect(await first.waitForExit() == 0)
    }
}
