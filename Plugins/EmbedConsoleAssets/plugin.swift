import Foundation
import PackagePlugin

/// Compiles the console into the target it is applied to (NavPrefsConsole): every file under the
/// target's `Assets` folder (as `console/<path>`; `*.md` notes for maintainers stay out) and the
/// package's contract, `openapi.yaml` and `openapi.json` (made from `openapi.yaml` by the tool, with
/// libyaml: no JSON copy is kept in the repository to go stale), become one generated Swift source.
/// Built into the binary, they need no install step: the container, `scripts/serve` and a fresh
/// clone serve the console the sources describe. The files are the command's inputs, so an edit
/// of any of them rebuilds it. SwiftPM also re-runs it when it relinks the tool (it does so
/// whenever `swift build` runs in a different environment), so the tool leaves an unchanged
/// output untouched, and scripts/serve builds in a fixed environment (scripts/lib/build.sh).
@main
struct EmbedConsoleAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let module = target as? any SourceModuleTarget else { return [] }
        let assets = module.directoryURL.appending(path: "Assets")
        var files = try Self.files(under: assets).map { (key: "console/" + $0.relative, url: $0.url, source: $0.url.path) }
        let contract = context.package.directoryURL.appending(path: "openapi.yaml")
        files.append((key: "openapi.yaml", url: contract, source: contract.path))
        files.append((key: "openapi.json", url: contract, source: "yaml-to-json:" + contract.path))
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedConsoleFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) console files in \(module.name)",
                executable: try context.tool(named: "ConsoleAssetEmbedder").url,
                arguments: [output.path] + files.map { "\($0.key)=\($0.source)" },
                inputFiles: files.map(\.url),
                outputFiles: [output])
        ]
    }

    /// The regular files below `directory`, with their paths relative to it, in a stable order.
    static func files(under directory: URL) throws -> [(relative: String, url: URL)] {
        let base = directory.standardizedFileURL.path + "/"
        guard let walker = FileManager.default.enumerator(
            at: directory, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        var found: [(relative: String, url: URL)] = []
        for case let url as URL in walker where url.pathExtension != "md" {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(base) else { continue }
            found.append((relative: String(path.dropFirst(base.count)), url: url))
        }
        return found.sorted { $0.relative < $1.relative }
    }
}
