import Foundation
import NavPrefsStore

/// `navprefs check`: would the service start and serve with this configuration? Validates the
/// settings exactly as the service reads them (flags and environment), reaches the database and
/// reads what it is, without creating or changing anything; answers with an exit status scripts
/// can act on (``ExitStatus``) and one line per finding.
enum CheckCommand {
    static let usage = """
        Usage: navprefs check [--database URL] [any setting of navprefs --help]
        Checks the configuration and the database the service would use, changing nothing.
        Exit status: 0 the service would start and serve; 2 a setting is wrong, or the service
        could not or would not listen (its address is in use or not this machine's; no access
        token on a public address); 3 no database (the service would create an empty one) or it
        cannot be reached; 4 the database cannot be served as it is (another program's, a newer
        schema, an unfinished import, a file it cannot write, a SQLite file a running navprefs
        serves).

        """

    static func run(_ arguments: ArraySlice<String>, environment: [String: String]) async -> Int32 {
        do {
            let parsed = try CommandArguments(arguments)
            if parsed.wantsHelp {
                print(usage, terminator: "")
                return 0
            }
            try await check(try parsed.configuration(environment: environment))
            return ExitStatus.success.rawValue
        } catch {
            return CommandOutput.fail("check", error)
        }
    }

    private static func check(_ configuration: Configuration) async throws(CommandFailure) {
        let database = configuration.database.description
        print("configuration: ok (--database \(database), --host \(configuration.host), --port \(configuration.port))")
        if case .sqlite(let path) = configuration.database {
            guard FileManager.default.fileExists(atPath: path) else {
                throw CommandFailure(.databaseUnavailable, "no database at \(database): the service would create an empty one there (check the path)")
            }
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            guard FileManager.default.isWritableFile(atPath: path), FileManager.default.isWritableFile(atPath: directory) else {
                throw CommandFailure(.databaseUnusable, "\(database): the file or its directory cannot be written by this user")
            }
        }
        let probe: StoreProbe
        do {
            probe = try StoreChoice.probe(configuration)
        } catch {
            throw CommandFailure(.databaseUnavailable, "cannot reach \(database): \(CommandStore.reason(error))")
        }
        // As the service would find it (a service that holds the file: below).
        if let refusal = probe.refusal(for: .service, database: database) { throw CommandFailure(.databaseUnusable, refusal) }
        let schema = probe.schemaVersion == probe.latestSchemaVersion ? "schema version \(probe.schemaVersion), this navprefs's"
            : probe.schemaVersion == 0 ? "no schema yet: the service creates it at start"
            : "schema version \(probe.schemaVersion): the service migrates it to \(probe.latestSchemaVersion) at start"
        print("database: reachable, \(schema)")
        if probe.claimedByAnotherProcess {
            throw CommandFailure(.databaseUnusable, "\(database) is served now by a running navprefs\(StoreChoice.holder(of: configuration).map { " (\($0))" } ?? ""): "
                + "a second service on it would not start (one process serves a SQLite file); stop that one first")
        }
        if let refusal = ListenCheck.refusal(host: configuration.host, port: configuration.port) {
            throw CommandFailure(.usage, "the service could not listen: \(refusal)")
        }
        print(configuration.port == 0 ? "address: port 0, the system picks a free one" : "address: \(configuration.host):\(configuration.port) is free to listen on")
        guard probe.schemaVersion == probe.latestSchemaVersion else {
            print("ready: the service would start and serve")
            return
        }
        let store = try await CommandStore.open(configuration, access: .reader(acceptsUnfinishedImport: false))
        let tokens: Int
        do {
            tokens = try await store.tokens().count
        } catch {
            await store.close()
            throw CommandFailure(.databaseUnavailable, "cannot read \(database): \(CommandStore.reason(error))")
        }
        await store.close()
        if configuration.requiresTokens && tokens == 0 {
            throw CommandFailure(.usage, "the service would refuse to listen on \(configuration.host) with no access token; create one "
                + "with 'navprefs tokens create --admin', or pass --allow-unauthenticated")
        }
        let access = tokens > 0 ? "requests need one"
            : configuration.listensOnLoopbackOnly ? "the API is open, on loopback only" : "the API is open to anyone who reaches it"
        print("tokens: \(tokens) (\(access))")
        print("ready: the service would start and serve")
    }
}
