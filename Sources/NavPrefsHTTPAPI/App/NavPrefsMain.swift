import Foundation
import MicroHTTPServer
import NavPrefsJSON
import NavPrefsStore

/// The `navprefs` command: configuration, start, serve until SIGTERM or SIGINT, stop cleanly.
/// Lives here rather than in `main.swift`, whose top-level code is main-actor isolated.
public enum NavPrefsMain {
    /// Runs the service; returns the process exit status.
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        if arguments.count > 1, arguments[1] == "tokens" {
            return await TokenCommand.run(Array(arguments.dropFirst(2)), environment: environment)
        }
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
        } catch {
            logger.error("cannot start", ["error": .string("\(error)")])
            logger.flush()
            return 1
        }
        await app.api.startAuthentication()
        if !configuration.listensOnLoopbackOnly && !configuration.allowUnauthenticated && !app.api.tokensExist {
            // Protected mode: open to anyone who can reach it is acceptable on loopback only.
            logger.error("refusing to start", ["reason": .string(
                "no access token exists and --host \(configuration.host) is reachable from other machines; "
                + "create one first (navprefs tokens create --admin), or pass --allow-unauthenticated to serve every profile to anyone")])
            logger.flush()
            FileHandle.standardError.write(Data("navprefs: refusing to listen on \(configuration.host) with no access token; create one with 'navprefs tokens create --admin', or pass --allow-unauthenticated\n".utf8))
            await app.store.close()
            return 2
        }
        do {
            try app.start()
        } catch {
            logger.error("cannot start", ["error": .string("\(error)")])
            logger.flush()
            await app.store.close()
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
