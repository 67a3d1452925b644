import NavPrefsCore

/// Where an import reads its lines from (a file, standard input): one line at a time, without
/// its newline; `nil` at the end.
public protocol TransferLineSource {
    mutating func nextLine() throws -> [UInt8]?
}

/// Why an import stopped.
public enum ImportFailure: Error, CustomStringConvertible {
    /// The store holds data and the import was not told to replace it.
    case notEmpty(StoreContent)
    /// The file is not one the store can serve exactly (its line is named).
    case invalid(TransferError)
    /// The store failed.
    case store(StoreError)
    /// The file could not be read.
    case input(String)

    public var description: String {
        switch self {
        case .notEmpty(let content):
            "the store is not empty (\(content)); import only into an empty store, or pass --replace to delete what it holds first"
        case .invalid(let error): "\(error)"
        case .store(let error): "\(error)"
        case .input(let message): message
        }
    }
}

/// Reads a file of the transfer format into a store: checks each line (``TransferValidator``),
/// gathers rows into batches of at most `maxBatchRows` rows or `maxBatchBytes` bytes, and writes
/// each batch in one transaction. Memory holds one batch and one profile's bookkeeping.
///
/// The first transaction marks the store as being imported into and the last removes the mark,
/// once the `end` line proved the file whole: a file cut short, a wrong line or a crash leaves a
/// store the service refuses to serve (`navprefs import --replace` starts over), never half a
/// store that looks whole.
public struct TransferImport {
    /// Delete what the store holds first; otherwise a store that holds anything is refused.
    public var replacing: Bool
    /// Recorded with the marker while the import runs: what is imported, since when.
    public var note: String
    public var maxBatchRows = 2_000
    public var maxBatchBytes = 8 << 20

    public init(replacing: Bool, note: String) {
        self.replacing = replacing
        self.note = note
    }

    /// Imports every line of `lines` into `store`; answers what the file held. `progress` is
    /// called after each batch with the counts so far.
    public func run(into store: any TransactionalStore, from lines: inout some TransferLineSource,
                    progress: @escaping (TransferCounts) -> Void = { _ in }) async throws(ImportFailure) -> TransferCounts {
        var reader = RecordReader()
        // The header first: a file that is not ours changes nothing.
        guard let first = try reader.next(from: &lines) else { throw .invalid(TransferError(line: 1, "the file is empty")) }
        let writer = BatchWriter(store: store, limits: (maxBatchRows, maxBatchBytes), progress: progress)
        try writer.check(first, line: reader.number)
        let content: StoreContent
        do { content = try await store.content() } catch { throw .store(error) }
        if !content.isEmpty && !replacing { throw .notEmpty(content) }
        do { try await store.beginImport(replacing: replacing, note: note) } catch { throw .store(error) }
        do throws(ImportFailure) {
            while !writer.isComplete, let record = try reader.next(from: &lines) {
                try await writer.add(record, line: reader.number)
            }
            guard writer.isComplete else {
                throw ImportFailure.invalid(TransferError(line: reader.number, "the file ends without its end record: it was cut short"))
            }
            if try reader.nextLine(from: &lines) != nil {
                throw ImportFailure.invalid(TransferError(line: reader.number, "nothing may follow the end record"))
            }
            try await writer.finish()
        } catch {
            // A write in flight ends before the failure is reported (and the store closed).
            await writer.abandon()
            throw error
        }
        do { try await store.finishImport() } catch { throw .store(error) }
        return writer.counts
    }
}

/// Lines to records, counting lines for the messages.
private struct RecordReader {
    private(set) var number = 0

    mutating func nextLine(from lines: inout some TransferLineSource) throws(ImportFailure) -> [UInt8]? {
        do {
            guard let bytes = try lines.nextLine() else { return nil }
            number += 1
            return bytes
        } catch {
            throw .input("cannot read line \(number + 1): \(error)")
        }
    }

    mutating func next(from lines: inout some TransferLineSource) throws(ImportFailure) -> TransferRecord? {
        guard let bytes = try nextLine(from: &lines) else { return nil }
        do {
            return try TransferRecord(line: bytes, number: number)
        } catch {
            throw .invalid(error)
        }
    }
}

/// Checks records and gathers them into batches, each written in one transaction.
///
/// One batch is written while the next is gathered, so the store's work (PostgreSQL's process,
/// SQLite's writer thread) overlaps the parsing; each write waits for the one before, so batches
/// commit in order, and at most two batches are in memory. Used by one task only.
private final class BatchWriter {
    private let store: any TransactionalStore
    private let limits: (rows: Int, bytes: Int)
    private let progress: (TransferCounts) -> Void
    private var validator = TransferValidator()
    private var batch = TransferBatch()
    /// The current profile's row waits for its defaults record, which carries the defaults' version.
    private var pending: (profile: TransferProfile, defaultsVersion: Int64, defaultsChange: LastChange?)?
    private var writing: Task<Void, any Error>?

    init(store: any TransactionalStore, limits: (rows: Int, bytes: Int), progress: @escaping (TransferCounts) -> Void) {
        self.store = store
        self.limits = limits
        self.progress = progress
    }

    var isComplete: Bool { validator.isComplete }
    var counts: TransferCounts { validator.counts }

    /// Checks `record` without keeping it (the header).
    func check(_ record: TransferRecord, line: Int) throws(ImportFailure) {
        do { try validator.check(record, line: line) } catch { throw .invalid(error) }
    }

    func add(_ record: TransferRecord, line: Int) async throws(ImportFailure) {
        let session: NavigationSession?
        do { session = try validator.check(record, line: line) } catch { throw .invalid(error) }
        switch record {
        case .profile, .token, .secret, .end:
            if let waiting = pending { batch.add(waiting.profile, defaultsVersion: waiting.defaultsVersion, defaultsChange: waiting.defaultsChange) }
            pending = nil
        default:
            break
        }
        switch record {
        case .header, .end: break
        case .profile(let profile): pending = (profile, 0, nil)
        case .defaults(let profile, let version, let values, let lastChange):
            pending?.defaultsVersion = version
            pending?.defaultsChange = lastChange
            batch.addDefaults(values, of: profile)
        case .preference(let profile, let key, let version, let value, let lastChange):
            batch.addPreference(key, value: value, version: version, lastChange: lastChange, of: profile)
        case .tombstone(let profile, let key, let version, let lastChange):
            batch.addPreference(key, value: nil, version: version, lastChange: lastChange, of: profile)
        case .session(let record):
            if let session { batch.add(record, decoded: session) }
        case .event(let event): batch.add(event)
        case .token(let token): batch.add(token)
        case .secret(let name, let value): batch.addSecret(named: name, value: value)
        }
        if batch.rowCount >= limits.rows || batch.byteCount >= limits.bytes { try await flush() }
    }

    /// Writes what is gathered and waits until every batch is in.
    func finish() async throws(ImportFailure) {
        try await flush()
        try await waitForWrite()
    }

    /// Waits for a write in flight, ignoring its outcome (an error is being reported already).
    func abandon() async {
        _ = try? await writing?.value
        writing = nil
    }

    private func flush() async throws(ImportFailure) {
        guard batch.rowCount > 0 else { return }
        try await waitForWrite()
        let (store, full) = (self.store, batch)
        writing = Task { try await store.importBatch(full) }
        batch = TransferBatch()
        progress(validator.counts)
    }

    private func waitForWrite() async throws(ImportFailure) {
        guard let task = writing else { return }
        writing = nil
        do {
            try await task.value
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw .store(.internal(reason: "\(error)"))
        }
    }
}
