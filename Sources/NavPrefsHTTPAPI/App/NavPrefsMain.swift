import Foundation
import MicroHTTPServer
import NavPrefsJSON

/// The `navprefs` command: configuration, start, serve until SIGTERM or SIGINT, stop cleanly.
/// Lives here rather than in `main.swift`, whose top-level code is main-actor isolated.
public enum NavPrefsMain {
    /// Runs the service; returns the process exit status.
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        let configuration: Configuration
        do {
            switch try Configuration.parse(arguments: arguments, environment: environment) {
            case .help:
                print(Configuration.usage, terminator: "")
                return 0
            case .run(let parsed):
                configuration = parsed
            }
        } catch {
            FileHandle.standardError.write(Data("navprefs: \(error)\nTry 'navprefs --help'.\n".utf8))
            return 2
        }

        let logger = Logger(level: configuration.logLevel, format: configuration.logFormat)
        logger.log(.info, "starting", configuration.loggedFields.map { ($0.0, Logger.Value.string($0.1)) })
        let app: NavPrefsApp
        do {
            app = try NavPrefsApp(configuration, logger: logger)
            try app.start()
        } catch {
            logger.error("cannot start", ["error": .string("\(error)")])
            logger.flush()
            return 1
        }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        logger.info("listening", ["url": .string("http://\(host):\(app.port)")])

        async let serving: Void = app.run()
        let signal = await Signals.first(of: [SIGTERM, SIGINT])
        logger.info("stopping", ["signal": .string(signal == SIGTERM ? "SIGTERM" : "SIGINT"),
                                 "grace_seconds": .integer(Int64(configuration.shutdownGraceSeconds))])
        await app.shutdown()
        await serving
        logger.info("stopped")
        logger.flush()
        return 0
    }
}
