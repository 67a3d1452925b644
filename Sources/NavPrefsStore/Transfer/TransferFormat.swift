/// The transfer format: a store's whole content as lines of JSON, written by `navprefs export`
/// and read by `navprefs import` (docs/transfer-format.md describes it for operators).
///
/// Why lines: a store of millions of events is written and read one record at a time, in
/// bounded memory, and a truncated file shows (it lacks its `end` line). Why JSON: values are
/// JSON already, and `jq` reads the file. Why exact: a record carries every column the service
/// answers from (versions, event ids, each profile's last event id, timestamps), so ETags and
/// `Last-Event-ID`s mean the same on the store it is imported into.
///
/// The order is fixed (`header`; per profile, profiles in byte order of their names: `profile`,
/// `defaults`, `preference`/`tombstone` by key, `session` oldest first, `event` by id; then
/// `token`s, `secret`s, `end`), so one content always gives the same bytes, whatever the store
/// it comes from, and an import checks it with the memory of one profile.
public enum TransferFormat {
    /// The `format` of the header.
    public static let name = "navprefs-export"
    /// The version this build writes and the newest it reads (it reads every older one too). A
    /// change that an older reader would misread takes a new version: 2 added each value's,
    /// tombstone's and defaults' `lastChange` (when and by whom), which a reader of 1 refuses
    /// as an unknown member.
    public static let version = 2
    /// The longest line an import reads: an event can carry a profile's 1000 registered
    /// defaults of up to 64 KiB each, escaped.
    public static let maxLineBytes = 160 << 20
}

/// The first line: what the file is and where it came from.
public struct TransferHeader: Sendable, Equatable {
    /// ``TransferFormat/version`` of the writer.
    public var formatVersion: Int
    /// The version of the navprefs that wrote it.
    public var navprefsVersion: String
    /// The kind of store it was exported from: `sqlite` or `postgresql`.
    public var store: String
    /// Whether it carries the shared secrets (the key that signs stream tokens): only when asked,
    /// since whoever holds it can mint stream tokens.
    public var includesSecrets: Bool

    public init(formatVersion: Int = TransferFormat.version, navprefsVersion: String, store: String, includesSecrets: Bool) {
        self.formatVersion = formatVersion
        self.navprefsVersion = navprefsVersion
        self.store = store
        self.includesSecrets = includesSecrets
    }
}

/// How many records of each kind a file holds (its `end` line), or an import read.
public struct TransferCounts: Sendable, Equatable, CustomStringConvertible {
    public var profiles = 0
    public var preferences = 0
    public var tombstones = 0
    public var defaults = 0
    public var sessions = 0
    public var events = 0
    public var tokens = 0
    public var secrets = 0

    public init() {}

    public var description: String {
        [(profiles, "profile"), (preferences, "value"), (tombstones, "tombstone"), (defaults, "set of defaults"), (sessions, "session"),
         (events, "event"), (tokens, "token"), (secrets, "secret")].map { count, noun in
            "\(count) " + (count == 1 ? noun : noun == "set of defaults" ? "sets of defaults" : noun + "s")
        }.joined(separator: ", ")
    }
}

/// A line the format does not allow, with its number (1-based).
public struct TransferError: Error, Equatable, CustomStringConvertible {
    public let line: Int
    public let message: String

    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}
