/// A command's arguments: its own flags and positional arguments, and the rest, which are the
/// service's settings (`--database URL`, `--sqlite-synchronous`...) and go to ``Configuration``,
/// so that a command reads the same database the service would, from the same flags and
/// environment variables.
struct CommandArguments {
    /// Flags given with a value (`--output FILE` or `--output=FILE`).
    private(set) var values: [String: String] = [:]
    /// Flags given alone (`--replace`).
    private(set) var switches: Set<String> = []
    private(set) var positional: [String] = []
    /// Whether `--help` or `-h` came.
    private(set) var wantsHelp = false
    /// The service's settings among the arguments, as `Configuration.parse` reads them.
    private(set) var settings = ["navprefs"]

    /// - Parameters:
    ///   - valued: the command's flags that take a value (without `--`).
    ///   - switches: the command's flags that take none.
    ///   - positional: how many positional arguments the command takes.
    init(_ arguments: ArraySlice<String>, valued: Set<String> = [], switches known: Set<String> = [], positional: Int = 0)
        throws(CommandFailure) {
        var rest = arguments
        while let argument = rest.popFirst() {
            if argument == "--help" || argument == "-h" {
                wantsHelp = true
                continue
            }
            guard argument.hasPrefix("--") else {
                guard self.positional.count < positional else { throw CommandFailure(.usage, "unexpected argument '\(argument.prefix(80))'") }
                self.positional.append(argument)
                continue
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            if known.contains(name) {
                guard !body.contains("=") else { throw CommandFailure(.usage, "--\(name) takes no value") }
                switches.insert(name)
            } else if valued.contains(name) {
                if let equals = body.firstIndex(of: "=") {
                    values[name] = String(body[body.index(after: equals)...])
                } else if let value = rest.popFirst() {
                    values[name] = value
                } else {
                    throw CommandFailure(.usage, "--\(name) needs a value")
                }
            } else {
                settings.append(argument)
                // A setting's value follows it unless given with `=` or the setting is a switch
                // (Configuration checks the name).
                let isSwitch = Setting.all.first { $0.flag == name }?.valueWhenAlone != nil
                if !body.contains("="), !isSwitch, let value = rest.first, !value.hasPrefix("--") {
                    settings.append(value)
                    rest.removeFirst()
                }
            }
        }
    }

    /// The configuration the settings and `environment` give (exit 2 when they are wrong).
    func configuration(environment: [String: String]) throws(CommandFailure) -> Configuration {
        do {
            switch try Configuration.parse(arguments: settings, environment: environment) {
            case .run(let configuration): return configuration
            case .help: throw CommandFailure(.usage, "--help")
            }
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(.usage, "\(error)")
        }
    }
}
