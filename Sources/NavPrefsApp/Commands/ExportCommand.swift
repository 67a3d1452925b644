import Foundation
import NavPrefsHTTPAPI
import NavPrefsStore

/// `navprefs export`: the whole store as the transfer format (docs/transfer-format.md), to
/// standard output or a file, from one snapshot. Reads only: the database must exist with this
/// build's schema, and a running service on it is no obstacle (its writes after the snapshot are
/// not in the file: stop writes first when moving a store).
enum ExportCommand {
    static let usage = """
        Usage: navprefs export [--output FILE] [--include-secrets] [--database URL]
        Writes every profile (values, tombstones, defaults, sessions, event log), every token (as
        its hash) and, with --include-secrets, the key that signs stream tokens, one JSON object a
        line, to standard output or FILE (created readable by its owner only; never overwritten).
        The format: docs/transfer-format.md. Exit status: 0 written, 1 failed, 2 usage, 3 no
        database, 4 a database this navprefs cannot read, 5 FILE exists.

        """

    static func run(_ arguments: ArraySlice<String>, environment: [String: String]) async -> Int32 {
        do {
            let parsed = try CommandArguments(arguments, valued: ["output"], switches: ["include-secrets"])
            if parsed.wantsHelp {
                print(usage, terminator: "")
                return 0
            }
            return try await export(parsed, configuration: parsed.configuration(environment: environment))
        } catch {
            return CommandOutput.fail("export", error)
        }
    }

    private static func export(_ arguments: CommandArguments, configuration: Configuration) async throws(CommandFailure) -> Int32 {
        let output = try arguments.values["output"].map { path throws(CommandFailure) in try OutputFile(path: path) } ?? OutputFile()
        let store: any TransactionalStore
        do {
            store = try await CommandStore.open(configuration, access: .reader(acceptsUnfinishedImport: false))
        } catch {
            output.abandon()
            throw error
        }
        let header = TransferHeader(navprefsVersion: BuildInfo.version, store: StoreChoice.kind(of: configuration),
                                    includesSecrets: arguments.switches.contains("include-secrets"))
        let started = ContinuousClock.now
        let counts: TransferCounts
        do {
            counts = try await store.exportContent(header) { line throws(StoreError) in try output.write(line: line) }
            try output.finish()
        } catch let error as CommandFailure {
            await store.close()
            output.abandon()
            throw error
        } catch {
            await store.close()
            output.abandon()
            throw CommandFailure(.failure, "export of \(configuration.database) failed: \(error)")
        }
        await store.close()
        let seconds = (ContinuousClock.now - started).inSeconds
        CommandOutput.say("export", "\(counts) from \(configuration.database) written to \(output.path ?? "standard output") "
            + "(\(output.bytes) bytes, \(String(format: "%.1f", seconds)) s)\(header.includesSecrets ? "; it holds the stream-signing key: keep it secret" : "")")
        return ExitStatus.success.rawValue
    }
}
