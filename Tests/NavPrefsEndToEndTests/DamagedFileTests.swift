import Foundation
import HTTPTestClient
import Testing

/// Damaged files are refused, not served (issue 32, item 5). A store after 200 acknowledged
/// increments and `kill -9` (its writes in the write-ahead log, its index in `-shm`), damaged
/// one way per case: `navprefs check` and the service's start each refuse it with a message
/// saying what is wrong and how to restore, and change nothing. Before: a deleted or cut log was
/// "no schema yet" and served empty, a zeroed or flipped one lost the last writes silently (and
/// issued their event ids again), damaged pages passed `check` and `/readyz`, and a zero-length
/// file started as an empty store.
@Suite("Damaged database files", .serialized)
struct DamagedFileTests {
    /// One store written and killed, copied for each case.
    static func crashedStore(in scratch: Scratch) async throws -> String {
        let database = scratch.path("pristine.sqlite")
        let (service, port) = try await ServiceProcess.start(database: database, extra: ["--sqlite-synchronous", "full"])
        for _ in 0..<200 {
            let status = try await TestHTTP.request(port: port, "POST", "/v1/profiles/p/counter/increment").status
            try #require(status == 200)
        }
        service.send(SIGKILL)
        _ = await service.waitForExit()
        #expect(FileManager.default.fileExists(atPath: database + "-wal"))
        #expect(FileManager.default.fileExists(atPath: database + "-shm"))
        return database
    }

    /// A copy of the files of `database` under `name`.
    static func copy(_ database: String, to name: String, in scratch: Scratch) throws -> String {
        let target = scratch.path(name)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database + suffix) {
            try FileManager.default.copyItem(atPath: database + suffix, toPath: target + suffix)
        }
        return target
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    static func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    /// Expects `check` and the service's start to refuse `database` with `message`, changing no byte.
    static func expectRefused(_ database: String, _ message: String, _ label: String) async throws {
        // The database and its log; the -shm is an index SQLite may create again when it reads.
        let before = try ["", "-wal"].map { FileManager.default.fileExists(atPath: database + $0) ? try bytes(database + $0) : [] }
        let check = try await NavPrefsCommand.run(["check", "--database", "sqlite:" + database])
        #expect(check.status == 4, "\(label): check \(check)")
        #expect((check.output + check.errors).contains(message), "\(label): check \(check)")
        #expect((check.output + check.errors).contains("Restore it from a backup"), "\(label): check \(check)")
        let service = try ServiceProcess(["--port", "0", "--database", "sqlite:" + database])
        let status = await service.waitForExit(timeout: .seconds(30))
        #expect(status != nil && status != 0, "\(label): the service started")
        let said = service.standardOutput + service.standardError
        #expect(said.contains(message) && said.contains("Restore it from a backup"), "\(label): \(said.suffix(800))")
        let after = try ["", "-wal"].map { FileManager.default.fileExists(atPath: database + $0) ? try bytes(database + $0) : [] }
        #expect(after == before, "\(label): the database or its log changed (\(before.map(\.count)) → \(after.map(\.count)) bytes)")
    }

    @Test("each damaged copy of a crashed store is refused by check and at start, with its message; the intact copy serves all 200")
    func damagedCopiesRefused() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let pristine = try await Self.crashedStore(in: scratch)
        let shm = try Self.bytes(pristine + "-shm")
        let frames = Int(shm[16]) | Int(shm[17]) << 8 | Int(shm[18]) << 16 | Int(shm[19]) << 24
        try #require(frames > 10, "the writes are in the log: \(frames) frames")
        let wal = try Self.bytes(pristine + "-wal")

        let cases: [(String, String, (String) throws -> Void)] = [
            ("WAL deleted", "write-ahead log", { try FileManager.default.removeItem(atPath: $0 + "-wal") }),
            ("WAL cut to 20 bytes", "is cut short: 20 bytes", { try Self.write(Array(wal.prefix(20)), to: $0 + "-wal") }),
            ("WAL cut in half", "is cut short", { try Self.write(Array(wal.prefix(wal.count / 2)), to: $0 + "-wal") }),
            ("WAL zeroed", "has no valid header (zeroed or overwritten)", { try Self.write([UInt8](repeating: 0, count: wal.count), to: $0 + "-wal") }),
            ("a byte of the WAL flipped", "is damaged (its checksum fails)", { path in
                var flipped = wal
                flipped[32 + (frames / 2) * (24 + 4_096) + 24 + 100] ^= 0x01
                try Self.write(flipped, to: path + "-wal")
            }),
            ("WAL and -shm deleted", "holds no NavPrefs schema, yet it is not a new file", { path in
                try FileManager.default.removeItem(atPath: path + "-wal")
                try FileManager.default.removeItem(atPath: path + "-shm")
            }),
        ]
        for (label, message, damage) in cases {
            let database = try Self.copy(pristine, to: label.replacing(" ", with: "-") + ".sqlite", in: scratch)
            try damage(database)
            try await Self.expectRefused(database, message, label)
        }

        // The intact copy: check passes, the service recovers every acknowledged write, and
        // stops cleanly, leaving one file for the cases of a database's own pages.
        let intact = try Self.copy(pristine, to: "intact.sqlite", in: scratch)
        let check = try await NavPrefsCommand.run(["check", "--database", "sqlite:" + intact])
        #expect(check.status == 0, "\(check)")
        let (service, port) = try await ServiceProcess.start(database: intact)
        #expect(try await TestHTTP.request(port: port, "GET", "/v1/profiles/p/counter").int("value") == 200)
        await service.stop()
        #expect(!FileManager.default.fileExists(atPath: intact + "-wal"))

        let pages = try Self.bytes(intact)
        try #require(pages.count >= 5 * 4_096)
        let damagedPages = try Self.copy(intact, to: "pages.sqlite", in: scratch)
        var garbled = pages
        for offset in (2 * 4_096)..<(pages.count - 4_096) where offset % 7 == 0 { garbled[offset] = UInt8(truncatingIfNeeded: offset) }
        try Self.write(garbled, to: damagedPages)
        try await Self.expectRefused(damagedPages, "SQLite's integrity check (quick_check)", "database pages damaged")

        let emptied = try Self.copy(intact, to: "zero.sqlite", in: scratch)
        try Self.write([], to: emptied)
        try await Self.expectRefused(emptied, "the file is empty (0 bytes)", "zero-length file")
    }
}
