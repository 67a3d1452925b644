import Foundation

/// The exit statuses of `navprefs` and its commands, the same for all of them so that scripts
/// can tell "fix the command line" from "the database is not there" from "try again later".
/// docs/operations.md lists them; `navprefs --help` too.
enum ExitStatus: Int32 {
    /// Done; for `check`: the service would start and serve with this configuration.
    case success = 0
    /// The command failed on the way: an input it cannot read or accept, a store error.
    case failure = 1
    /// The command line or the configuration is wrong; nothing was touched.
    case usage = 2
    /// The database is missing (no SQLite file at the path: nothing was created) or cannot be
    /// reached (PostgreSQL down, wrong host or credentials).
    case databaseUnavailable = 3
    /// The database is there but not usable this way: another program's, a schema this build
    /// does not know, an unfinished import, or in use by a running service where the command
    /// needs it alone.
    case databaseUnusable = 4
    /// Refused so as not to overwrite: an import into a store that holds data (without
    /// `--replace`), an output file that exists.
    case refused = 5
}

/// Why a command stops: its exit status and one line for standard error.
struct CommandFailure: Error, CustomStringConvertible {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { message }
}

enum CommandOutput {
    /// Writes `navprefs COMMAND: message` on standard error, on one line (libpq's messages
    /// come on several), its control characters escaped: messages quote files and databases.
    static func say(_ command: String, _ message: String) {
        write("navprefs \(command)", message)
    }

    /// Writes `prefix: message` on standard error, on one line, its control characters escaped.
    static func write(_ prefix: String, _ message: String) {
        let line = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        FileHandle.standardError.write(Data("\(prefix): \(TerminalText.escaped(line))\n".utf8))
    }

    /// Reports `failure` on standard error and answers its status.
    static func fail(_ command: String, _ failure: CommandFailure) -> Int32 {
        say(command, failure.message)
        return failure.status.rawValue
    }
}

extension Duration {
    /// The duration in seconds, for messages.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
