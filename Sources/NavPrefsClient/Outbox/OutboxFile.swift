import Foundation

/// The outbox on disk: one JSON line per queued write, then one `{"done": id}` line per write
/// the server answered. A line is one `write(2)`, made before the synchronous call that queued
/// the write returns, so a process killed at any moment (SIGKILL included) finds every write it
/// accepted at the next launch, each with its idempotency key. (The page cache outlives the
/// process; surviving a power cut would take an `fsync` per write, about a millisecond.)
final class OutboxFile: Sendable {
    let url: URL
    private let handle: Locked<FileHandle?>

    /// Opens (creating it and its directory) the outbox of mirror suite `suite`:
    /// `$XDG_CONFIG_HOME` (or `~/.config`) on Linux, Application Support/NavPrefs on Apple platforms.
    init(suite: String) throws(NavPrefsError) {
        let directory = Self.directory()
        url = directory.appendingPathComponent("\(suite).navprefs-outbox")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: url.path) {
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
            }
            handle = Locked(try FileHandle(forUpdating: url))
        } catch {
            throw .storage("cannot open the outbox \(url.path): \(error)")
        }
    }

    static func directory() -> URL {
        #if os(Linux)
            if let config = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
                return URL(fileURLWithPath: config)
            }
            // `$HOME` first, as every XDG program reads it (Foundation's home directory is the
            // password database's, which a test or a sandbox cannot move).
            let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
            return URL(fileURLWithPath: home).appendingPathComponent(".config")
        #else
            let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
            return support.appendingPathComponent("NavPrefs")
        #endif
    }

    /// The writes not answered yet, in the order they were queued.
    func load() -> [OutboxEntry] {
        guard let data = try? Data(contentsOf: url) else { return [] }
        var entries: [OutboxEntry] = []
        var done = Set<String>()
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let json = try? JSON(parsing: Data(line)) else { continue }  // a line cut short by a crash
            if let id = json["done"]?.stringValue {
                done.insert(id)
            } else if let entry = OutboxEntry(json: json) {
                entries.append(entry)
            }
        }
        return entries.filter { !done.contains($0.id) }
    }

    /// Appends `entry` (one write).
    func append(_ entry: OutboxEntry) throws(NavPrefsError) {
        try write(entry.json.jsonText + "\n")
    }

    /// Records that the server answered `id`; with `empty`, nothing is left, and the file is cut
    /// back to nothing.
    func markDone(_ id: String, empty: Bool) throws(NavPrefsError) {
        try write(JSON.object([.init("done", .string(id))]).jsonText + "\n")
        if empty {
            try handle.withLock { (handle: inout FileHandle?) throws(NavPrefsError) in
                do {
                    try handle?.truncate(atOffset: 0)
                } catch {
                    throw .storage("cannot empty the outbox: \(error)")
                }
            }
        }
    }

    /// Deletes the file (the app signs out).
    func erase() {
        handle.withLock { handle in
            try? handle?.truncate(atOffset: 0)
            try? handle?.close()
            handle = nil
        }
        try? FileManager.default.removeItem(at: url)
    }

    private func write(_ line: String) throws(NavPrefsError) {
        try handle.withLock { (handle: inout FileHandle?) throws(NavPrefsError) in
            guard let handle else { throw .storage("the outbox is closed") }
            do {
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(line.utf8))
            } catch {
                throw .storage("cannot write the outbox \(url.path): \(error)")
            }
        }
    }
}
