public import NavPrefsCore

/// One transaction of a store, in its SQL dialect: what the store algorithm (the `Operations`
/// folder) needs from a database. The algorithm decides every step of an operation; a dialect
/// only says how to run a named statement (``StoreStatement``) and how to take an event id.
///
/// Implementations live in the dialect targets (`NavPrefsSQLite`, `NavPrefsPostgres`), one per
/// connection, and are used on that connection's thread only.
public protocol StoreTransaction {
    /// Runs `statement` with `values` bound to its parameters in order, and returns its rows.
    func rows(_ statement: StoreStatement, _ values: [StatementValue]) throws -> [StoreRow]

    /// Takes the profile's next event id (also the version of what the write stores), locking
    /// the profile against other writers until the transaction ends, so that a profile's writes
    /// run one after the other and commit in id order. Rolled back with the write if it is refused.
    /// - Parameters:
    ///   - creating: create the profile when it does not exist (its first write).
    ///   - touchingPreferences: the id also becomes the version of the profile's preferences as
    ///     a whole (writes of sessions leave that version alone).
    /// - Returns: `nil` when the profile does not exist and `creating` is `false`.
    func claimEventID(of profile: ProfileName, creating: Bool, touchingPreferences: Bool) throws -> EventClaim?

    /// Who makes the write this transaction runs (``StoreWrite/by(_:)``): recorded with what it
    /// changes, in its events and beside its values. `nil` for writes nobody named an author of
    /// (the store's own, such as a session's idle expiry).
    var author: ChangeAuthor? { get }

    /// ``author`` as JSON text, as its events and the values it stores record it.
    var authorText: String? { get }
}

extension StoreTransaction {
    /// A dialect's transaction names no author; ``AuthoredTransaction`` does.
    public var author: ChangeAuthor? { nil }
    public var authorText: String? { author?.json.jsonText }

    /// ``author`` as the store keeps it beside a value: its JSON text, or NULL.
    var authorValue: StatementValue { authorText.map(StatementValue.text) ?? .null }

    /// Runs `statement`, discarding its rows.
    public func run(_ statement: StoreStatement, _ values: StatementValue...) throws {
        _ = try rows(statement, values)
    }

    /// The rows of `statement`.
    public func rows(_ statement: StoreStatement, _ values: StatementValue...) throws -> [StoreRow] {
        try rows(statement, values)
    }

    /// The first row of `statement`, or `nil`.
    public func firstRow(_ statement: StoreStatement, _ values: StatementValue...) throws -> StoreRow? {
        try rows(statement, values).first
    }
}

/// What taking an event id found out about the profile (see ``StoreTransaction/claimEventID(of:creating:touchingPreferences:)``).
public struct EventClaim: Sendable, Equatable {
    /// The profile's next event id: the version of what the write stores.
    public let eventID: Int64
    /// Whether this write created the profile.
    public let created: Bool
    /// The version of the profile's registered defaults.
    public let defaultsVersion: Version

    public init(eventID: Int64, created: Bool, defaultsVersion: Version) {
        self.eventID = eventID
        self.created = created
        self.defaultsVersion = defaultsVersion
    }
}

/// A value bound to a statement parameter. Lists travel as one parameter, in the form each
/// dialect reads them (a JSON array for SQLite's `json_each`, an array literal for PostgreSQL).
public enum StatementValue: Sendable, Equatable {
    case integer(Int64)
    case text(String)
    case bool(Bool)
    case null
    case integers([Int64])
    case texts([String])

    /// `value` when present, else SQL NULL.
    public static func optional(_ value: Int64?) -> StatementValue { value.map(StatementValue.integer) ?? .null }
}

/// One row of a result, read into memory: cells are integers, text or NULL. Accessors throw
/// instead of trapping on data that is not what the store wrote (a damaged or foreign table).
public struct StoreRow: Sendable {
    public enum Cell: Sendable, Equatable {
        case null
        case integer(Int64)
        case text(String)
    }

    public let cells: [Cell]

    public init(_ cells: [Cell]) { self.cells = cells }

    public func isNull(_ column: Int) -> Bool { column >= cells.count || cells[column] == .null }

    public func optionalText(_ column: Int) -> String? {
        guard column < cells.count else { return nil }
        switch cells[column] {
        case .null: return nil
        case .text(let text): return text
        case .integer(let number): return String(number)
        }
    }

    public func text(_ column: Int) throws(StoreError) -> String {
        guard let text = optionalText(column) else { throw .corrupted(reason: "column \(column) is NULL") }
        return text
    }

    public func optionalInt64(_ column: Int) throws(StoreError) -> Int64? {
        guard column < cells.count else { return nil }
        switch cells[column] {
        case .null: return nil
        case .integer(let number): return number
        case .text(let text):
            guard let number = Int64(text) else { throw .corrupted(reason: "column \(column) is not an integer") }
            return number
        }
    }

    public func int64(_ column: Int) throws(StoreError) -> Int64 {
        guard let number = try optionalInt64(column) else { throw .corrupted(reason: "column \(column) is NULL") }
        return number
    }

    /// A boolean column: an integer (SQLite) or `t`/`f` (PostgreSQL's text form).
    public func bool(_ column: Int) throws(StoreError) -> Bool {
        switch column < cells.count ? cells[column] : .null {
        case .integer(let number): return number != 0
        case .text("t"), .text("true"): return true
        case .text("f"), .text("false"): return false
        default: throw .corrupted(reason: "column \(column) is not a boolean")
        }
    }
}
