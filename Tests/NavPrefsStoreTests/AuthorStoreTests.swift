import Foundation
import HTTPTestClient
import NavPrefsCore
import NavPrefsJSON
@testable import NavPrefsPostgres
@testable import NavPrefsSQLite
@testable import NavPrefsStore
import StoreTestSupport
import Testing

/// Who changed what, in the store (issue 36): a write made `by` an author records it in its own
/// transaction (its events' data, beside the values it stores, the defaults' row), a history is
/// one indexed read of the log, export and import carry it, and the quota counts it. Against
/// every store (see ``StoreKind``).
@Suite("Store contract: authors and histories")
struct AuthorStoreTests {
    static let phone = ChangeAuthor(token: "0123456789ab", label: "ana's phone", device: "Ana’s iPhone")
    static let tablet = ChangeAuthor(token: "ba9876543210", label: "kitchen", device: "kitchen-ipad")

    /// The author in a logged event's data.
    static func author(_ event: LoggedEvent) throws -> ChangeAuthor? {
        guard case .object(let data) = try JSONValue.parse(event.data) else { return nil }
        return data["author"].flatMap(ChangeAuthor.init)
    }

    /// A profile changed by both devices: the counter, a key set then removed, the font, the defaults.
    static func populate(_ store: any Store) async throws {
        let ana = profile("ana"), theme = try PreferenceKey("theme")
        _ = try await store.perform(.counter(.increment(.one), of: ana, if: nil).by(phone))
        _ = try await store.perform(try .setPreference(.string("dark"), for: theme, of: ana, if: nil).by(phone))
        _ = try await store.perform(try .setPreference(.string("light"), for: theme, of: ana, if: nil).by(tablet))
        _ = try await store.perform(try .setDefaults(["theme": .string("sepia")], merging: false, of: ana, if: nil).by(phone))
        _ = try await store.perform(.removePreference(theme, of: ana, if: nil).by(tablet))
        _ = try await store.perform(.font(try FontSettings.settingSlider(to: 3), of: ana, if: nil).by(tablet))
        _ = try await store.perform(try .updatePreferences([PreferenceUpdate(key: try PreferenceKey("volume"), value: .integer(3))], of: ana,
                                                           if: nil).by(phone))
    }

    @Test("a write's author is in its events' data and beside what it stored, in the same transaction", arguments: StoreKind.testCases)
    func recorded(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            try await Self.populate(store)
            let ana = profile("ana")
            let events = try await store.events(of: ana, after: 0, limit: 100)
            #expect(try events.map { try Self.author($0) } == [Self.phone, Self.phone, Self.tablet, Self.phone, Self.tablet, Self.tablet, Self.phone])
            let state = try await store.state(of: ana)
            #expect(state.counterChange?.author == Self.phone)
            #expect(state.fontChange?.author == Self.tablet)
            #expect(state.preferences.defaultsChange?.author == Self.phone)
            let slots = Dictionary(uniqueKeysWithValues: state.slots.map { ($0.key.rawValue, $0) })
            // The removal (event 5) came after the defaults (event 4): the key shows its default, removed by the tablet.
            #expect(slots["theme"]?.source == .registered)
            #expect(slots["theme"]?.lastChange?.author == Self.tablet)
            #expect(slots["volume"]?.lastChange?.author == Self.phone)
            // The time is the write's, by the database's clock, as its event's: after the event
            // before it, no later than its own (PostgreSQL's clock moves within a transaction).
            let at = try #require(slots["volume"]?.lastChange?.at)
            #expect(events[5].timestamp <= at && at <= events[6].timestamp)
            // A write nobody named an author of records the time, and no author.
            _ = try await store.setPreference(.integer(1), for: try PreferenceKey("anonymous"), of: ana, if: nil)
            let anonymous = try await store.preference(try PreferenceKey("anonymous"), of: ana)
            #expect(anonymous.lastChange != nil && anonymous.lastChange?.author == nil)
            #expect(try Self.author(try #require(try await store.events(of: ana, after: 7, limit: 1).first)) == nil)
        }
    }

    @Test("a history is newest first, paged, per key, the counter's and the font settings'; a key never written has none",
          arguments: StoreKind.testCases)
    func histories(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            try await Self.populate(store)
            let ana = profile("ana")
            let theme = try await store.history(of: "theme", of: ana, before: nil, limit: 10)
            #expect(theme.events.map(\.id) == [5, 3, 2])
            #expect(try theme.events.map { try Self.author($0) } == [Self.tablet, Self.tablet, Self.phone])
            #expect(theme.next == nil && theme.log == EventLogBounds(earliest: 1, latest: 7))
            let first = try await store.history(of: "theme", of: ana, before: nil, limit: 2)
            #expect(first.events.map(\.id) == [5, 3] && first.next == 3)
            let rest = try await store.history(of: "theme", of: ana, before: 3, limit: 2)
            #expect(rest.events.map(\.id) == [2] && rest.next == nil)
            #expect(try await store.history(of: HistorySubject.counter, of: ana, before: nil, limit: 10).events.map(\.id) == [1])
            #expect(try await store.history(of: HistorySubject.font, of: ana, before: nil, limit: 10).events.map(\.id) == [6])
            #expect(try await store.history(of: "volume", of: ana, before: nil, limit: 10).events.map(\.id) == [7])
            #expect(try await store.history(of: "never", of: ana, before: nil, limit: 10).events.isEmpty)
            #expect(try await store.history(of: "theme", of: profile("nobody"), before: nil, limit: 10)
                == HistoryPage(events: [], next: nil, log: EventLogBounds(earliest: 1, latest: 0)))
        }
    }

    @Test("export and import keep every author: a round trip is exact, and histories and last changes read the same",
          arguments: StoreKind.testCases)
    func roundTrip(kind: StoreKind) async throws {
        try await withStore(kind) { source, _ in
            try await Self.populate(source)
            let lines = try await TransferFixture.export(source)
            #expect(lines.first?.contains(#""version":2"#) == true)
            #expect(lines.contains { $0.contains(#""lastChange":{"at":"#) && $0.contains(#""device":"kitchen-ipad""#) })
            try await withStore(kind) { target, _ in
                try await TransferFixture.import(lines, into: target)
                #expect(try await TransferFixture.export(target) == lines)
                let ana = profile("ana")
                #expect(try await target.state(of: ana) == source.state(of: ana))
                for subject in ["theme", "volume", HistorySubject.counter, HistorySubject.font] {
                    #expect(try await target.history(of: subject, of: ana, before: nil, limit: 10)
                        == source.history(of: subject, of: ana, before: nil, limit: 10), "\(subject)")
                }
            }
        }
    }

    @Test("a file of format 1 (no last changes) still imports, and its events get their histories", arguments: StoreKind.testCases)
    func formatOne(kind: StoreKind) async throws {
        try await withStore(kind) { source, _ in
            try await Self.populate(source)
            let lines = try await TransferFixture.export(source).map { line in
                line.replacing(#""version":2,"source""#, with: #""version":1,"source""#)
                    .replacing(/,"lastChange":\{"at":\d+,"author":(null|\{[^}]*\})\}/, with: "")
            }
            #expect(!lines.contains { $0.contains("lastChange") })
            try await withStore(kind) { target, _ in
                try await TransferFixture.import(lines, into: target)
                let ana = profile("ana")
                #expect(try await target.history(of: "theme", of: ana, before: nil, limit: 10).events.map(\.id) == [5, 3, 2])
                #expect(try await target.history(of: HistorySubject.font, of: ana, before: nil, limit: 10).events.map(\.id) == [6])
                // What format 1 did not carry reads as not known.
                #expect(try await target.preference(try PreferenceKey("volume"), of: ana).lastChange == nil)
            }
        }
    }

    @Test("the quota counts an author's bytes beside the value, the event log in its event", arguments: StoreKind.testCases)
    func quotaCountsAuthors(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let short = ChangeAuthor(token: nil, label: nil, device: nil)
            let long = ChangeAuthor(token: nil, label: nil, device: String(repeating: "d", count: 64))
            _ = try await store.perform(try .setPreference(.integer(1), for: try PreferenceKey("k"), of: profile("a"), if: nil).by(short))
            _ = try await store.perform(try .setPreference(.integer(1), for: try PreferenceKey("k"), of: profile("b"), if: nil).by(long))
            let storage = Dictionary(uniqueKeysWithValues: try await store.largestProfiles(limit: 10).map { ($0.profile.rawValue, $0) })
            let (a, b) = (try #require(storage["a"]), try #require(storage["b"]))
            let longer = long.json.jsonText.utf8.count - short.json.jsonText.utf8.count
            // Beside the value (the quota's part), and in the event's data (the log's part).
            #expect((b.bytes - b.eventLogBytes) - (a.bytes - a.eventLogBytes) == longer)
            #expect(b.eventLogBytes - a.eventLogBytes == longer)
        }
    }

    @Test("a database from before authors migrates: its events get their histories, its values no last change yet",
          arguments: StoreKind.testCases)
    func migration(kind: StoreKind) async throws {
        let database = try await onOwnThread { try TestDatabase(kind) }
        defer { database.remove() }
        // The schema as the previous release left it, with a value, its event, and a font change.
        let rows = """
            INSERT INTO profiles (name, created_at, last_event_id, preferences_version) VALUES ('old', 0, 3, 3);
            INSERT INTO preferences (profile, key, value, version) VALUES ('old', 'theme', '"dark"', 2);
            INSERT INTO events (profile, id, type, data, created_at, log_offset, log_size) VALUES
                ('old', 1, 'preference', '{"profile":"old","key":"theme","value":"light","version":1}', 10, 0, 59),
                ('old', 2, 'preference', '{"profile":"old","key":"theme","value":"dark","version":2}', 20, 59, 58),
                ('old', 3, 'refresh', '{"profile":"old","name":"doRefreshNotification","keys":[],"version":3}', 30, 117, 70);
            """
        switch kind {
        case .sqlite:
            let connection = try SQLiteConnection(path: database.path, readOnly: false)
            try connection.execute("PRAGMA journal_mode = WAL")
            try SQLiteSchema.migrate(connection, upTo: Self.sqliteBeforeAuthors)
            try connection.execute(rows)
        case .postgres:
            let connection = try PostgresConnection(url: database.url)
            try PostgresSchema.migrate(connection, upTo: Self.postgresBeforeAuthors)
            try connection.execute(rows)
        }
        let store = try await onOwnThread { try database.open() }
        let old = profile("old")
        #expect(try await store.history(of: "theme", of: old, before: nil, limit: 10).events.map(\.id) == [2, 1])
        #expect(try await store.history(of: HistorySubject.font, of: old, before: nil, limit: 10).events.map(\.id) == [3])
        #expect(try await store.preference(try PreferenceKey("theme"), of: old).lastChange == nil)
        _ = try await store.perform(try .setPreference(.string("sepia"), for: try PreferenceKey("theme"), of: old, if: nil).by(Self.phone))
        #expect(try await store.preference(try PreferenceKey("theme"), of: old).lastChange?.author == Self.phone)
        await store.close()
    }

    /// The schema versions before the one that records authors.
    static let sqliteBeforeAuthors = (SQLiteSchema.migrations.last { $0.summary.hasPrefix("who changed what") }?.version ?? 1) - 1
    static let postgresBeforeAuthors = (PostgresSchema.migrations.last { $0.summary.hasPrefix("who changed what") }?.version ?? 1) - 1
}
