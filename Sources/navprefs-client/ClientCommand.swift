import Foundation
import NavPrefsClient

/// The command line: which command, on which server, with which token.
enum ClientCommand {
    static let usage = """
        navprefs-client: read, write and watch a NavPrefs profile (the NavPrefsClient library's example).

        usage: navprefs-client get PROFILE KEY [--as GETTER]   print KEY's value (JSON), or a UserDefaults getter's answer
               navprefs-client set PROFILE KEY JSON            store a JSON value under KEY, if nobody changed it meanwhile
               navprefs-client watch PROFILE                   print the profile's events as they come (Ctrl-C ends)
               navprefs-client increment PROFILE [COUNT]       queue COUNT increments (default 1; 0: none), then wait
                                                               until every queued write (also an earlier run's) is sent

        options: --server URL   the server (NAVPREFS_SERVER, default http://127.0.0.1:8080)
                 --token TOKEN  an access token (NAVPREFS_TOKEN)

        GETTER is object, string, integer, float, double, bool, array, dictionary, stringArray or url.
        Exit status: 0 done, 1 refused (412, 4xx) or no value, 2 usage, 3 server unreachable.

        """

    struct Options {
        var server = URL(string: "http://127.0.0.1:8080")
        var token: String?
        var getter = "object"
        var positional: [String] = []
    }

    static func run(_ arguments: [String], environment: [String: String]) async -> Int32 {
        var options = Options()
        if let server = environment["NAVPREFS_SERVER"] { options.server = URL(string: server) }
        options.token = environment["NAVPREFS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                print(usage, terminator: "")
                return 0
            case "--server", "--token", "--as":
                guard let value = remaining.popFirst() else { return fail("\(argument) needs a value") }
                switch argument {
                case "--server": options.server = URL(string: value)
                case "--token": options.token = value
                default: options.getter = value
                }
            default:
                options.positional.append(argument)
            }
        }
        guard let server = options.server, server.scheme == "http" || server.scheme == "https" else {
            return fail("--server must be an http:// or https:// URL")
        }
        let client = NavPrefsClient(server: server, token: options.token)
        switch (options.positional.first, options.positional.count) {
        case ("get"?, 3): return await Commands.get(client, profile: options.positional[1], key: options.positional[2], as: options.getter)
        case ("set"?, 4): return await Commands.set(client, profile: options.positional[1], key: options.positional[2], json: options.positional[3])
        case ("watch"?, 2): return await Commands.watch(client, profile: options.positional[1])
        case ("increment"?, 2), ("increment"?, 3):
            guard let count = Int(options.positional.count == 3 ? options.positional[2] : "1"), count >= 0 else {
                return fail("COUNT must be a whole number, 0 or more")
            }
            return await Commands.increment(client, profile: options.positional[1], count: count)
        default: return fail("expected get PROFILE KEY, set PROFILE KEY JSON, watch PROFILE or increment PROFILE [COUNT]")
        }
    }

    static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("navprefs-client: \(message)\nTry 'navprefs-client --help'.\n".utf8))
        return 2
    }
}
