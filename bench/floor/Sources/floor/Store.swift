import CSQLite

/// What one write came to once its turn committed.
enum Outcome {
    case committed(value: Int64, version: Int64, eventID: Int64)
    /// The guarded upsert changed nothing (the step would leave Int64): rolled back alone.
    case refused
    /// A storage failure: the turn's transaction was rolled back, nothing of it is acknowledged.
    case failed
}

/// One SQLite connection used only by the loop thread, and the transaction of the current turn.
///
/// The first write of a turn opens the transaction (`BEGIN IMMEDIATE`); every write runs in a
/// savepoint of its own, so a refused one rolls back alone; `commitTurn()` commits once, and with
/// `synchronous=FULL` that commit is the turn's one flush of the WAL.
final class Store {
    private let db: OpaquePointer
    /// A second connection for reads that miss the cache: it sees only committed data, even while
    /// the turn's transaction is open on `db`.
    private let reader: OpaquePointer
    private let begin, commit, rollback, savepoint, rollbackToSavepoint, releaseSavepoint: OpaquePointer
    private let createProfile, readCounter: OpaquePointer
    private let claimEventID, applyCounter, appendEvent: Script
    /// Profiles whose row exists in a committed transaction (navprefs' `WriteContext.knownProfiles`).
    private var knownProfiles: Set<String> = []
    private var inTransaction = false
    /// Set when a statement failed this turn: the transaction was rolled back, every write of the
    /// turn fails.
    private(set) var turnFailed = false
    private var data: [UInt8] = []
    /// The author navprefs records for a write made without a token.
    private static let openAuthor = #"{"token":"open"}"#

    init?(path: String, synchronous: String) {
        func open(_ flags: Int32) -> OpaquePointer? {
            var handle: OpaquePointer?
            guard sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle else {
                sqlite3_close_v2(handle)
                return nil
            }
            return handle
        }
        guard let db = open(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) else { return nil }
        // navprefs' writer connection (SQLiteStore.start, with SQLiteFreeSpace.pragmas: freed
        // pages are given back, which keeps a pointer map in the file that writes maintain).
        guard sqlite3_exec(db, """
            PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_size_limit = \(16 << 20);
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = \(synchronous);
            PRAGMA busy_timeout = 5000;
            PRAGMA foreign_keys = OFF;
            """, nil, nil, nil) == SQLITE_OK, Schema.create(db),
            let reader = open(SQLITE_OPEN_READONLY),
            sqlite3_exec(reader, "PRAGMA busy_timeout = 5000; PRAGMA query_only = 1;", nil, nil, nil) == SQLITE_OK
        else { return nil }
        func prepare(_ connection: OpaquePointer, _ sql: String) -> OpaquePointer? {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK else {
                return nil
            }
            return statement
        }
        guard let begin = prepare(db, "BEGIN IMMEDIATE"), let commit = prepare(db, "COMMIT"),
              let rollback = prepare(db, "ROLLBACK"), let savepoint = prepare(db, "SAVEPOINT job"),
              let rollbackToSavepoint = prepare(db, "ROLLBACK TO job"), let releaseSavepoint = prepare(db, "RELEASE job"),
              let createProfile = prepare(db, Statements.createProfile),
              let claimEventID = Script(db, Statements.claimEventID),
              let applyCounter = Script(db, Statements.applyCounter),
              let appendEvent = Script(db, Statements.appendEvent),
              let readCounter = prepare(reader, Statements.readCounter)
        else { return nil }
        (self.db, self.reader) = (db, reader)
        (self.begin, self.commit, self.rollback) = (begin, commit, rollback)
        (self.savepoint, self.rollbackToSavepoint, self.releaseSavepoint) = (savepoint, rollbackToSavepoint, releaseSavepoint)
        (self.createProfile, self.claimEventID, self.applyCounter) = (createProfile, claimEventID, applyCounter)
        (self.appendEvent, self.readCounter) = (appendEvent, readCounter)
        data.reserveCapacity(256)
    }

    var lastError: String { String(cString: sqlite3_errmsg(db)) }

    /// Runs a statement without rows to its end.
    private func run(_ statement: OpaquePointer) -> Bool {
        defer { sqlite3_reset(statement) }
        return sqlite3_step(statement) == SQLITE_DONE
    }

    /// Runs navprefs' increment of `profile`'s counter by `by` in the turn's transaction, in its
    /// own savepoint. Nothing is durable (or answered) before ``commitTurn()``.
    func increment(_ profile: String, by: Int64) -> Outcome {
        if turnFailed { return .failed }
        if !inTransaction {
            guard run(begin) else { return fail() }
            inTransaction = true
        }
        guard run(savepoint) else { return fail() }
        var name = profile
        let result: Outcome? = name.withUTF8 { name in
            guard let base = name.baseAddress else { return nil }
            let text = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
            let count = Int32(name.count)
            // A profile comes into being on its first write (claimEventID(creating: true)).
            if !knownProfiles.contains(profile) {
                sqlite3_bind_text(createProfile, 1, text, count, nil)
                guard run(createProfile) else { return nil }
            }
            claimEventID.bindText(1, text, count, nil)
            claimEventID.bindInt64(2, 1)
            defer { claimEventID.reset() }
            guard claimEventID.step() == SQLITE_ROW else { return nil }
            let eventID = claimEventID.column(0)
            guard claimEventID.step() == SQLITE_DONE else { return nil }
            // The guarded upsert, bound as navprefs binds a plain increment (no precondition).
            applyCounter.bindText(1, text, count, nil)
            applyCounter.bindNull(2)
            applyCounter.bindInt64(3, by)
            applyCounter.bindInt64(4, eventID)
            applyCounter.bindInt64(5, Int64.min)
            applyCounter.bindInt64(6, Int64.max - by)
            applyCounter.bindNull(7)
            applyCounter.bindNull(8)
            // navprefs' author of a write without a token (`--allow-unauthenticated` or none set).
            applyCounter.bindText(9, Self.openAuthor, Int32(Self.openAuthor.utf8.count), floor_sqlite_transient())
            defer { applyCounter.reset() }
            switch applyCounter.step() {
            case SQLITE_ROW: break
            case SQLITE_DONE: return .refused
            default: return nil
            }
            let value = applyCounter.column(0), version = applyCounter.column(1)
            guard applyCounter.step() == SQLITE_DONE else { return nil }
            // The event, with the data ChangeEvent.counter writes (members in its order) and the
            // author navprefs adds to it.
            data.removeAll(keepingCapacity: true)
            data.append(contentsOf: #"{"profile":""#.utf8)
            data.append(contentsOf: name)
            data.append(contentsOf: #"","key":"numIndex","operation":"increment","by":"#.utf8)
            data.appendDecimal(by)
            data.append(contentsOf: #","value":"#.utf8)
            data.appendDecimal(value)
            data.append(contentsOf: #","stringValue":""#.utf8)
            data.appendDecimal(value)
            data.append(contentsOf: #"","version":"#.utf8)
            data.appendDecimal(version)
            data.append(contentsOf: #","author":"#.utf8)
            data.append(contentsOf: Self.openAuthor.utf8)
            data.append(UInt8(ascii: "}"))
            let stepped: Bool = data.withUnsafeBufferPointer { bytes in
                guard let event = bytes.baseAddress else { return false }
                appendEvent.bindText(1, text, count, nil)
                appendEvent.bindInt64(2, eventID)
                appendEvent.bindText(3, "counter", 7, floor_sqlite_transient())
                appendEvent.bindText(5, "numIndex", 8, floor_sqlite_transient())  // the history it belongs to
                appendEvent.bindText(4, UnsafeRawPointer(event).assumingMemoryBound(to: CChar.self),
                                  Int32(bytes.count), nil)
                defer { appendEvent.reset() }
                return appendEvent.step() == SQLITE_ROW && appendEvent.step() == SQLITE_DONE
            }
            return stepped ? .committed(value: value, version: version, eventID: eventID) : nil
        }
        switch result {
        case .refused?:
            guard run(rollbackToSavepoint), run(releaseSavepoint) else { return fail() }
            return .refused
        case let outcome?:
            guard run(releaseSavepoint) else { return fail() }
            return outcome
        case nil:
            return fail()
        }
    }

    /// A storage failure: the whole transaction goes, and with it every write of this turn.
    private func fail() -> Outcome {
        if inTransaction { _ = run(rollback) }
        inTransaction = false
        turnFailed = true
        return .failed
    }

    /// Commits the turn's transaction (with FULL: flushes the WAL) and forgets the turn's
    /// failure. Returns whether the turn's writes are committed. `created` are the profiles the
    /// committed writes touched: they exist now.
    func commitTurn(created: some Sequence<String>) -> Bool {
        defer { turnFailed = false }
        guard inTransaction else { return false }
        inTransaction = false
        guard run(commit) else {
            _ = run(rollback)
            return false
        }
        knownProfiles.formUnion(created)
        return !turnFailed
    }

    /// The committed counter of `profile` (value, version); a profile without a row reads as a
    /// fresh one (0, 0), as navprefs' `StoreRead.counter` does.
    func read(_ profile: String) -> (value: Int64, version: Int64)? {
        var name = profile
        return name.withUTF8 { name in
            guard let base = name.baseAddress else { return nil }
            sqlite3_bind_text(readCounter, 1, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                              Int32(name.count), nil)
            defer { sqlite3_reset(readCounter) }
            switch sqlite3_step(readCounter) {
            case SQLITE_ROW: return (sqlite3_column_int64(readCounter, 0), sqlite3_column_int64(readCounter, 1))
            case SQLITE_DONE: return (0, 0)
            default: return nil
            }
        }
    }

    func close() {
        for statement in [begin, commit, rollback, savepoint, rollbackToSavepoint, releaseSavepoint,
                          createProfile] {
            sqlite3_finalize(statement)
        }
        sqlite3_finalize(readCounter)
        sqlite3_close_v2(reader)
        sqlite3_close_v2(db)  // the last connection checkpoints the WAL into the file
    }
}

extension [UInt8] {
    /// Appends `value` in decimal, without a String.
    mutating func appendDecimal(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt64 = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        repeat {
            append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        } while divisor > 0
    }
}
