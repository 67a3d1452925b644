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
                    progress: (TransferCounts) -> Void = { _ in }) async throws(ImportFailure) -> TransferCounts {
        var validator = TransferValidator()
        var number = 0
        func nextLine() throws(ImportFailure) -> [UInt8]? {
            do {
                guard let bytes = try lines.nextLine() else { return nil }
                number += 1
                return bytes
            } catch {
                throw .input("cannot read line \(number + 1): \(error)")
            }
        }
        func next() throws(ImportFailure) -> TransferRecord? {
            guard let bytes = try nextLine() else { return nil }
            do {
                return try TransferRecord(line: bytes, number: number)
            } catch {
                throw .invalid(error)
            }
        }
        // The header first: a file that is not ours changes nothing.
        guard let first = try next() else { throw .invalid(TransferError(line: 1, "the file is empty")) }
        do { try validator.check(first, line: number) } catch { throw .invalid(error) }
        let content: StoreContent
        do { content = try await store.content() } catch { throw .store(error) }
        if !content.isEmpty && !replacing { throw .notEmpty(content) }
        do { try await store.beginImport(replacing: replacing, note: note) } catch { throw .store(error) }

        var batch = TransferBatch()
        // The current profile's row waits for its defaults record, which carries the defaults' version.
        var pending: (profile: TransferProfile, defaultsVersion: Int64)?
        func flush() async throws(ImportFailure) {
            guard batch.rowCount > 0 else { return }
            do { try await store.importBatch(batch) } catch { throw .store(error) }
            batch = TransferBatch()
            progress(validator.counts)
        }
        while let record = try next() {
            let session: NavigationSession?
            do { session = try validator.check(record, line: number) } catch { throw .invalid(error) }
            switch record {
            case .profile, .token, .secret, .end:
                if let waiting = pending { batch.add(waiting.profile, defaultsVersion: waiting.defaultsVersion) }
                pending = nil
            default:
                break
            }
            switch record {
            case .header, .end: break
            case .profile(let profile): pending = (profile, 0)
            case .defaults(let profile, let version, let values):
                pending?.defaultsVersion = version
                batch.addDefaults(values, of: profile)
            case .preference(let profile, let key, let version, let value): batch.addPreference(key, value: value, version: version, of: profile)
            case .tombstone(let profile, let key, let version): batch.addPreference(key, value: nil, version: version, of: profile)
            case .session(let record):
                if let session { batch.add(record, decoded: session) }
            case .event(let event): batch.add(event)
            case .token(let token): batch.add(token)
            case .secret(let name, let value): batch.addSecret(named: name, value: value)
            }
            if batch.rowCount >= maxBatchRows || batch.byteCount >= maxBatchBytes { try await flush() }
            if validator.isComplete { break }
        }
        guard validator.isComplete else {
            throw .invalid(TransferError(line: number, "the file ends without its end record: it was cut short"))
        }
        if try nextLine() != nil { throw .invalid(TransferError(line: number, "nothing may follow the end record")) }
        try await flush()
        do { try await store.finishImport() } catch { throw .store(error) }
        return validator.counts
    }
}
