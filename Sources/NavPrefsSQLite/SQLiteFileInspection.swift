import Foundation

/// Reads a database's files as bytes, before any connection opens them (opening one runs
/// SQLite's recovery, which drops a damaged write-ahead log without a word and would serve the
/// store as of an older commit, issuing its event ids again). Finds what SQLite does not report:
///
/// - a zero-length file (SQLite reads it as an empty database);
/// - a write-ahead log (`-wal`) that does not hold what its index (`-shm`, left by a process that
///   stopped without closing) says was committed: missing, cut short, overwritten (zeroed),
///   of another generation, or with a frame whose checksum fails (a flipped byte).
///
/// Without a `-shm` there is nothing to compare the log with; a service stopped cleanly leaves
/// neither file. Formats: <https://www.sqlite.org/fileformat2.html#walformat> and the wal-index
/// header of `wal.c` (native byte order, two equal copies, then the checkpoint info).
enum SQLiteFileInspection {
    /// What is wrong with the files at `path`, or `nil` when nothing is found. `inspectsLog`:
    /// whether the `-wal` and `-shm` may be read as they stand (not while a service writes them).
    static func damage(at path: String, inspectsLog: Bool) -> String? {
        guard let size = fileSize(path) else { return nil }
        if size == 0 { return "the file is empty (0 bytes): a database that was here has been lost or truncated" }
        guard inspectsLog else { return nil }
        return logDamage(database: path)
    }

    private static func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
    }

    /// The file's bytes; `nil` when it cannot be opened. Through `FileHandle`: Foundation's
    /// `FileManager.contents(atPath:)` leaks its 4 KiB buffer on an empty file (LeakSanitizer,
    /// swift-corelibs-foundation of Swift 6.3), and an empty `-wal` is common.
    private static func read(_ path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        do {
            return try handle.readToEnd().map { [UInt8]($0) } ?? []  // nil: an empty file
        } catch {
            return nil
        }
    }

    /// The `-wal` checked against the `-shm`'s header.
    private static func logDamage(database path: String) -> String? {
        let walPath = path + "-wal", shmPath = path + "-shm"
        let wal = read(walPath)
        guard let shm = read(shmPath), let index = WALIndexHeader(shm), index.frames > 0 else {
            // No index to compare with: only a header that is no WAL header can be told.
            guard let wal, !wal.isEmpty else { return nil }
            if wal.count < 32 { return "its write-ahead log (\(walPath)) is cut short: \(wal.count) bytes, less than its 32-byte header" }
            return WALHeader(wal) == nil ? "its write-ahead log (\(walPath)) has no valid header (zeroed or overwritten)" : nil
        }
        let frameSize = 24 + index.pageSize
        let needed = 32 + Int(index.frames) * frameSize
        guard let wal else {
            return "its write-ahead log (\(walPath)) is missing, while its index (\(shmPath)) says it holds \(index.frames) frames of committed writes"
        }
        guard wal.count >= needed else {
            return "its write-ahead log (\(walPath)) is cut short: \(wal.count) bytes, where its index (\(shmPath)) says committed writes take \(needed)"
        }
        guard let header = WALHeader(wal) else {
            return "its write-ahead log (\(walPath)) has no valid header (zeroed or overwritten), while its index says it holds \(index.frames) frames"
        }
        guard wal[16..<24].elementsEqual(index.salt), header.pageSize == index.pageSize else {
            return "its write-ahead log (\(walPath)) is not the one its index (\(shmPath)) describes (another generation of the log)"
        }
        var checksum = header.checksum
        for frame in 0..<Int(index.frames) {
            let start = 32 + frame * frameSize
            guard wal[(start + 8)..<(start + 16)].elementsEqual(wal[16..<24]) else {
                return "frame \(frame + 1) of \(index.frames) in its write-ahead log (\(walPath)) is not of this log (its salt differs)"
            }
            checksum = WALHeader.checksum(wal, from: start, count: 8, bigEndian: header.bigEndianChecksum, seed: checksum)
            checksum = WALHeader.checksum(wal, from: start + 24, count: index.pageSize, bigEndian: header.bigEndianChecksum, seed: checksum)
            guard checksum.0 == bigEndian32(wal, start + 16), checksum.1 == bigEndian32(wal, start + 20) else {
                return "frame \(frame + 1) of \(index.frames) in its write-ahead log (\(walPath)) is damaged (its checksum fails): committed writes would be lost"
            }
        }
        return nil
    }

    static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (UInt32(bytes[offset]) << 24) | (UInt32(bytes[offset + 1]) << 16) | (UInt32(bytes[offset + 2]) << 8) | UInt32(bytes[offset + 3])
    }

    static func littleEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | (UInt32(bytes[offset + 1]) << 8) | (UInt32(bytes[offset + 2]) << 16) | (UInt32(bytes[offset + 3]) << 24)
    }
}

/// The first copy of the wal-index header in `-shm` (native byte order: little-endian here),
/// read only when both copies agree and it is initialised, as SQLite reads it.
private struct WALIndexHeader {
    let frames: UInt32
    let pageSize: Int
    let salt: ArraySlice<UInt8>

    init?(_ shm: [UInt8]) {
        guard shm.count >= 136, shm[0..<48].elementsEqual(shm[48..<96]), shm[12] == 1,
              SQLiteFileInspection.littleEndian32(shm, 0) == 3_007_000 else { return nil }
        let size = Int(shm[14]) | (Int(shm[15]) << 8)
        pageSize = size == 1 ? 65_536 : size
        guard pageSize >= 512 else { return nil }
        frames = SQLiteFileInspection.littleEndian32(shm, 16)
        salt = shm[32..<40]
    }
}

/// The 32-byte header of a `-wal` (big-endian), valid when its magic and checksum are.
private struct WALHeader {
    let bigEndianChecksum: Bool
    let pageSize: Int
    let checksum: (UInt32, UInt32)

    init?(_ wal: [UInt8]) {
        guard wal.count >= 32 else { return nil }
        let magic = SQLiteFileInspection.bigEndian32(wal, 0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else { return nil }
        bigEndianChecksum = magic & 1 == 1
        let size = Int(SQLiteFileInspection.bigEndian32(wal, 8))
        pageSize = size == 1 ? 65_536 : size
        let computed = Self.checksum(wal, from: 0, count: 24, bigEndian: bigEndianChecksum, seed: (0, 0))
        guard computed.0 == SQLiteFileInspection.bigEndian32(wal, 24), computed.1 == SQLiteFileInspection.bigEndian32(wal, 28) else {
            return nil
        }
        checksum = computed
    }

    /// SQLite's WAL checksum over `count` bytes (a multiple of 8) from `start`, continuing `seed`.
    static func checksum(_ bytes: [UInt8], from start: Int, count: Int, bigEndian: Bool, seed: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s1, s2) = seed
        var offset = start
        while offset < start + count {
            let x0 = bigEndian ? SQLiteFileInspection.bigEndian32(bytes, offset) : SQLiteFileInspection.littleEndian32(bytes, offset)
            let x1 = bigEndian ? SQLiteFileInspection.bigEndian32(bytes, offset + 4) : SQLiteFileInspection.littleEndian32(bytes, offset + 4)
            s1 = s1 &+ x0 &+ s2
            s2 = s2 &+ x1 &+ s1
            offset += 8
        }
        return (s1, s2)
    }
}
