import Foundation
import NavPrefsApp

// Everything else lives in NavPrefsApp: top-level code here is main-actor isolated, and C or
// Dispatch callbacks defined in this file would trap when called from other threads.
exit(await NavPrefsMain.run(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
