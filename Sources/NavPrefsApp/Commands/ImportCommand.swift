import Foundation
import NavPrefsStore

/// `navprefs import`: a file of the transfer format into an empty SQLite or PostgreSQL store,
/// exactly (versions, ETags, event ids and each profile's last event id as they were), in
/// batches of transactions. The store is claimed meanwhile (SQLite: no service may open it) and
/// marked until the last batch is in: the service refuses a store an import did not finish.
enum ImportCommand {
    static let usage = """
        Usage: navprefs import [FILE] [--replace] [--database URL]
        Reads a file written by `navprefs export` (standard input without FILE, or with -) into
        the store --database names, which must be empty: a store that holds data is refused,
        unless --replace, which deletes everything it holds first. A SQLite file is created if
        missing; no navprefs may serve the store meanwhile. An import that fails or is cut short
        leaves a store navprefs refuses to serve: run it again with --replace.
        Exit status: 0 imported, 1 failed (the message names the line), 2 usage, 3 database
        unreachable, 4 database in use or of another version, 5 the store is not empty.

        """

    static func run(_ arguments: ArraySlice<String>, environment: [String: String]) async -> Int32 {
        do {
            let parsed = try CommandArguments(arguments, switches: ["replace"], positional: 1)
            if parsed.wantsHelp {
                print(usage, terminator: "")
                return 0
            }
            return try await load(parsed, configuration: parsed.configuration(environment: environment))
        } catch {
            return CommandOutput.fail("import", error)
        }
    }

    private static func load(_ arguments: CommandArguments, configuration: Configuration) async throws(CommandFailure) -> Int32 {
        let name = arguments.positional.first.flatMap { $0 == "-" ? nil : $0 }
        let handle: FileHandle
        if let name {
            guard let file = FileHandle(forReadingAtPath: name) else {
                throw CommandFailure(.failure, "cannot read \(name): \(unsafe String(cString: strerror(errno)))")
            }
            handle = file
        } else {
            handle = FileHandle.standardInput
        }
        let store = try await CommandStore.open(configuration, access: .importer)
        let started = ContinuousClock.now
        let note = "\(name ?? "standard input") into \(configuration.database), begun \(Date().formatted(.iso8601))"
        var lines = LineReader(handle)
        var lastReport = ContinuousClock.now
        let outcome: Result<TransferCounts, ImportFailure>
        do {
            outcome = .success(try await TransferImport(replacing: arguments.switches.contains("replace"), note: note)
                .run(into: store, from: &lines) { counts in
                    guard ContinuousClock.now - lastReport >= .seconds(5) else { return }
                    lastReport = ContinuousClock.now
                    CommandOutput.say("import", "\(counts.profiles) profiles, \(counts.events) events so far")
                })
        } catch {
            outcome = .failure(error)
        }
        // Whether the failure came after the first transaction (which marks the store).
        let marked = (try? await store.content().unfinishedImport) != nil
        await store.close()
        try? handle.close()
        switch outcome {
        case .success(let counts):
            CommandOutput.say("import", "\(counts) from \(name ?? "standard input") into \(configuration.database) "
                + "(\(String(format: "%.1f", (ContinuousClock.now - started).inSeconds)) s)")
            return ExitStatus.success.rawValue
        case .failure(.notEmpty(let content)):
            throw CommandFailure(.refused, "\(configuration.database) is not empty (\(content)); import only into an empty store, "
                + "or pass --replace to delete what it holds first")
        case .failure(let failure):
            let advice = marked ? "; \(configuration.database) now holds part of an import, which navprefs refuses to serve: "
                + "run the import again with --replace" : ""
            throw CommandFailure(.failure, "\(name ?? "standard input"): \(failure)\(advice)")
        }
    }
}
