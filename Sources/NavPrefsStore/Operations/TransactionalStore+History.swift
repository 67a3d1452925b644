public import NavPrefsCore

/// A page of one history (a key's, the counter's, the font settings'), newest first, as far as
/// the profile's event log still reaches.
public struct HistoryPage: Sendable, Hashable {
    /// The entries of the page, newest first.
    public let events: [LoggedEvent]
    /// Where the next, older page starts (its `before`); `nil` when this page holds the oldest
    /// entry the log keeps.
    public let next: Int64?
    /// The profile's log: the oldest id it keeps is where every history of the profile begins.
    public let log: EventLogBounds

    public init(events: [LoggedEvent], next: Int64?, log: EventLogBounds) {
        self.events = events
        self.next = next
        self.log = log
    }
}

extension StoreRead where Value == HistoryPage {
    /// The changes of `subject` (``HistorySubject``) of `profile` older than `before` (all when
    /// `nil`), newest first, at most `limit` (at least 1) and, after the first, at most
    /// `maxBytes` of logged data: one range of the event log's index on (profile, subject, id),
    /// and the log's bounds, from one snapshot.
    public static func history(of subject: String, of profile: ProfileName, before: Int64?, limit: Int, maxBytes: Int) -> StoreRead {
        StoreRead(snapshot: true) { transaction in
            let log = try TransactionSteps.eventLogBounds(of: profile, in: transaction)
            let limit = max(1, limit)
            // One more than asked: whether an older page exists, without a second read. Entries
            // past the bytes come without their data.
            let rows = try transaction.rows(subject == HistorySubject.counter ? .counterHistoryBefore : .historyBefore,
                                            .text(profile.rawValue), .text(subject), .integer(before ?? .max),
                                            .integer(Int64(limit) + 1), .integer(Int64(maxBytes)))
            let kept = try rows.prefix(limit).prefix { !$0.isNull(2) }.map { row in try TransactionSteps.loggedEvent(row, of: profile) }
            let next = rows.count > kept.count ? kept.last?.id : nil
            return HistoryPage(events: kept, next: next, log: log)
        }
    }
}
