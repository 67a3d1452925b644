import Foundation
import NavPrefsHTTPAPI
import NavPrefsSQLite

/// The `navprefs` command: configuration, start, serve until SIGTERM or SIGINT, stop cleanly.
/// Lives here rather than in `main.swift`, whose top-level code is main-actor isolated.
public enum NavPrefsMain {
    /// Runs the command in `arguments`; returns the process exit status.
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        // Process-wide, so the application decides: files it creates (the database, its WAL,
        // a database a command makes, backups) are readable by its user only.
        umask(0o077)
        // Commands keep the default action of SIGINT and SIGTERM: Ctrl-C ends an export or an
        // import at once, and what it leaves never looks whole (a file keeps its .partial name,
        // a store its unfinished-import marker).
        if let status = await Commands.run(arguments, environment: environment) { return status }
        // First of all for the service: from here on a SIGTERM is a request to stop, whatever is starting.
        let shutdown = ShutdownSignal()
        shutdown.installHandlers()
        let configuration: Configuration
        do {
            switch try Configuration.parse(arguments: arguments, environment: environment) {
            case .help:
                print(Configuration.usage + Commands.usage, terminator: "")
                return 0
            case .run(let parsed):
                configuration = parsed
            }
        } catch {
            FileHandle.standardError.write(Data("navprefs: \(error)\nTry 'navprefs --help'.\n".utf8))
            return 2
        }
        var configured = configuration
        if let path = configuration.streamSecretFile {
            guard let data = FileManager.default.contents(atPath: path), let secret = StreamSecret.of(data) else {
                FileHandle.standardError.write(Data("navprefs: --stream-secret-file \(path): unreadable, or fewer than 16 bytes\n".utf8))
                return 2
            }
            configured.streamSecret = secret
        }
        // Process-wide, so the application decides: freed heap is kept, and SQLite keeps no
        // memory statistics (see HeapTuning).
        HeapTuning.keepFreedHeap(upTo: 256 << 20)
        HeapTuning.skipSQLiteMemoryStatistics()
        return await serve(configured, shutdown: shutdown)
    }

    /// Starts the service, serves until `shutdown` is requested, stops it.
    private static func serve(_ configuration: Configuration, shutdown: ShutdownSignal) async -> Int32 {
        let logger = Logger(level: configuration.logLevel, format: configuration.logFormat)
        logger.log(.info, "starting", configuration.loggedFields.map { ($0.0, Logger.Value.string($0.1)) })
        let app = NavPrefsApp(configuration, logger: logger, shutdown: shutdown)
        do {
            try await app.start()
        } catch let error as ServicePartError {
            if let refusal = error.underlying as? AuthenticationPart.ProtectedMode {
                logger.error("refusing to start", ["reason": .string(refusal.description)])
                logger.flush()
                FileHandle.standardError.write(Data("navprefs: refusing to listen on \(configuration.host) with no access token; create one with 'navprefs tokens create --admin', or pass --allow-unauthenticated\n".utf8))
                return 2
            }
            logger.error("cannot start", ["part": .string(error.part), "error": .string("\(error.underlying)")])
            logger.flush()
            sayCannotStart("\(error.underlying)")
            return 1
        } catch {
            logger.error("cannot start", ["error": .string("\(error)")])
            logger.flush()
            sayCannotStart("\(error)")
            return 1
        }
        async let serving: Void = app.run()
        await shutdown.wait()
        logger.info("stopping", ["signal": .string(shutdown.reason ?? "-"),
                                 "grace_seconds": .integer(Int64(configuration.shutdownGraceSeconds))])
        await serving
        logger.info("stopped")
        logger.flush()
        return 0
    }
}

/// Says on standard error, in one plain line, why the service did not start: the log (JSON by
/// default, on standard output) has it too, after a long `starting` line, where a person at a
/// terminal would miss it.
private func sayCannotStart(_ reason: String) {
    CommandOutput.write("navprefs: cannot start", reason)
}

/// The secret of `--stream-secret-file`: its text without surrounding whitespace (a line from
/// `openssl rand -hex 32`), or its bytes in hexadecimal when they are not text (`head -c 32
/// /dev/urandom`); `nil` below 16 bytes.
enum StreamSecret {
    static func of(_ data: Data) -> String? {
        if let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines) {
            return text.utf8.count >= 16 ? text : nil
        }
        return data.count >= 16 ? data.map { String(format: "%02x", $0) }.joined() : nil
    }
}
