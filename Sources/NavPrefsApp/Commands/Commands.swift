import NavPrefsHTTPAPI

/// The commands of `navprefs` beside serving: which one the arguments name, and their summary
/// for `navprefs --help`. Each works on the database the service's settings name (`--database`,
/// `DATABASE_URL`), and all share the exit statuses of ``ExitStatus``.
enum Commands {
    static let usage = """

        commands (each reads the settings above, e.g. --database; navprefs COMMAND --help):
          navprefs check                                       would the service start and serve? (changes nothing)
          navprefs export [--output FILE] [--include-secrets]  the whole store, one JSON object a line
          navprefs import [FILE] [--replace]                   load an export into an empty store
          navprefs backup --output FILE                        a consistent copy of a SQLite store, beside the service
          navprefs tokens create|list|revoke ...               access tokens, also while the service runs
          navprefs --version                                   the version, as /metrics and the image label give it
        exit status: 0 done; 1 failed; 2 usage or configuration; 3 no database, or unreachable;
          4 a database this command cannot use as it is; 5 refused, so as not to overwrite

        """

    /// Runs the command `arguments` name (`arguments[0]` is the program); `nil` when they name
    /// none: the service runs.
    static func run(_ arguments: [String], environment: [String: String]) async -> Int32? {
        guard arguments.count > 1 else { return nil }
        let rest = arguments.dropFirst(2)
        switch arguments[1] {
        case "--version", "version":
            print("navprefs \(BuildInfo.version)")
            return 0
        case "tokens": return await TokenCommand.run(Array(rest), environment: environment)
        case "export": return await ExportCommand.run(rest, environment: environment)
        case "import": return await ImportCommand.run(rest, environment: environment)
        case "backup": return await BackupCommand.run(rest, environment: environment)
        case "check": return await CheckCommand.run(rest, environment: environment)
        default: return nil
        }
    }
}
