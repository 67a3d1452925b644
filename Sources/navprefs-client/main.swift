import Foundation

// `navprefs-client get|set|watch`: the NavPrefsClient library's command-line example.
let status = await ClientCommand.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
exit(status)
