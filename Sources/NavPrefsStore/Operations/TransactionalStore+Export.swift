import NavPrefsCore
import NavPrefsJSON

/// Export: the store's whole content as the transfer format's lines, from one snapshot.
extension TransactionalStore {
    /// Writes every profile (with its values, tombstones, defaults, sessions and event log),
    /// every token and, if `header` says so, every secret, as lines of ``TransferFormat``, to
    /// `output`, and answers what it wrote.
    ///
    /// One read transaction: the lines show the store as of one commit, also while a service
    /// writes to it. Memory stays bounded: profiles are read `profilesPerPage` at a time and a
    /// profile's events `eventsPerPage` at a time, and every line goes to `output` as soon as it
    /// is made. Values are parsed and written again in their canonical form, which also checks
    /// them: an export never holds a line an import would refuse.
    ///
    /// - Parameter output: called with each line (no newline), on a store thread; a failure it
    ///   throws ends the export.
    public func exportContent(_ header: TransferHeader, profilesPerPage: Int = 500, eventsPerPage: Int = 1_000,
                              to output: @escaping @Sendable (String) throws -> Void) async throws(StoreError) -> TransferCounts {
        let attempts = SharedState(0)
        return try await read(snapshot: true) { transaction in
            // A store may run a read again on a new connection; lines already written cannot be taken back.
            let attempt = attempts.withLock { count in
                count += 1
                return count
            }
            guard attempt == 1 else {
                throw StoreError.unavailable(reason: "the connection to the store was lost during the export; run it again")
            }
            var exporter = Exporter(transaction: transaction, output: output)
            try exporter.emit(.header(header))
            var after = ""  // every name comes after the empty string
            while true {
                let page = try transaction.rows(.exportProfiles, .text(after), .integer(Int64(max(1, profilesPerPage))))
                for row in page {
                    after = try row.text(0)
                    try exporter.profile(row, eventsPerPage: max(1, eventsPerPage))
                }
                if page.count < max(1, profilesPerPage) { break }
            }
            for row in try transaction.rows(.listTokens) {
                let text = row.optionalText(2)
                let scope = try text.map { text throws(StoreError) -> ProfileName in
                    guard let name = try? ProfileName(text) else { throw .corrupted(reason: "token of an invalid profile '\(text)'") }
                    return name
                }
                try exporter.emit(.token(TokenRecord(id: try row.text(0), hash: try row.text(1), profile: scope, label: try row.text(3),
                                                     createdAt: try row.int64(4))))
            }
            if header.includesSecrets {
                for row in try transaction.rows(.exportSecrets) { try exporter.emit(.secret(name: try row.text(0), value: try row.text(1))) }
            }
            try exporter.emit(.end(exporter.counts))
            return exporter.counts
        }
    }
}

/// Writes one profile's records and counts every record, inside the export's transaction.
private struct Exporter {
    let transaction: any StoreTransaction
    let output: (String) throws -> Void
    var counts = TransferCounts()

    mutating func emit(_ record: TransferRecord) throws {
        try output(record.line)
        switch record {
        case .profile: counts.profiles += 1
        case .defaults: counts.defaults += 1
        case .preference: counts.preferences += 1
        case .tombstone: counts.tombstones += 1
        case .session: counts.sessions += 1
        case .event: counts.events += 1
        case .token: counts.tokens += 1
        case .secret: counts.secrets += 1
        case .header, .end: break
        }
    }

    /// The id of the newest event of `name` whose data no JSON parser here reads (nested
    /// deeper than Jansson goes: a defaults event of a store written before the API bounded
    /// depth), 0 when there is none. The export starts the profile's log after it, as retention
    /// would have: a client resuming from before is told to read the state again (`reset`),
    /// rather than the export failing for the whole store or leaving a gap nobody is told of.
    private func unreadableEventsEnd(of name: ProfileName, eventsPerPage: Int) throws -> Int64 {
        var after: Int64 = 0, end: Int64 = 0
        while true {
            let page = try transaction.rows(.eventsAfter, .text(name.rawValue), .integer(after), .integer(Int64(eventsPerPage)))
            for row in page {
                after = try row.int64(0)
                let text = try row.text(2)
                if JSONDepth.of(text: text) > JSONDepth.maxInlineDepth, (try? JSONValue.parse(text)) == nil { end = after }
            }
            if page.count < eventsPerPage { return end }
        }
    }

    /// `row` of ``StoreStatement/exportProfiles``, and everything of the profile after it.
    mutating func profile(_ row: StoreRow, eventsPerPage: Int) throws {
        let text = try row.text(0)
        guard let name = try? ProfileName(text) else { throw StoreError.corrupted(reason: "a profile named '\(text)'") }
        try emit(.profile(TransferProfile(name: name, createdAt: try row.int64(1), lastEventID: try row.int64(2),
                                          preferencesVersion: try row.int64(4))))
        let defaultsVersion = try row.int64(3)
        let defaults = try transaction.rows(.registeredDefaults, .text(name.rawValue))
        if defaultsVersion > 0 || !defaults.isEmpty {
            let values = JSONObject(try defaults.map { (try $0.text(0), try TransactionSteps.parse(try $0.text(1))) })
            try emit(.defaults(profile: name, version: defaultsVersion, values: values, lastChange: try TransactionSteps.lastChange(row, at: 5)))
        }
        for row in try transaction.rows(.exportPreferences, .text(name.rawValue)) {
            let keyText = try row.text(0)
            guard let key = try? PreferenceKey(keyText) else { throw StoreError.corrupted(reason: "stored key '\(keyText)' of '\(name)'") }
            if let value = row.optionalText(1) {
                try emit(.preference(profile: name, key: key, version: try row.int64(2), value: try TransactionSteps.parse(value),
                                     lastChange: try TransactionSteps.lastChange(row, at: 3)))
            } else {
                try emit(.tombstone(profile: name, key: key, version: try row.int64(2), lastChange: try TransactionSteps.lastChange(row, at: 3)))
            }
        }
        for row in try transaction.rows(.exportSessions, .text(name.rawValue)) {
            let idText = try row.text(0)
            guard let id = try? SessionID(idText) else { throw StoreError.corrupted(reason: "session id '\(idText)' of '\(name)'") }
            try emit(.session(TransferSession(profile: name, id: id, version: try row.int64(2), createdSequence: try row.int64(3),
                                              createdAt: try row.int64(4), state: try TransactionSteps.parse(try row.text(1)),
                                              label: row.optionalText(5), updatedAt: try row.int64(6))))
        }
        var after = try unreadableEventsEnd(of: name, eventsPerPage: eventsPerPage)
        while true {
            let page = try transaction.rows(.eventsAfter, .text(name.rawValue), .integer(after), .integer(Int64(eventsPerPage)))
            for row in page {
                after = try row.int64(0)
                try emit(.event(TransferEvent(profile: name, id: after, type: try row.text(1), createdAt: try row.int64(3),
                                              data: try TransactionSteps.parse(try row.text(2)))))
            }
            if page.count < eventsPerPage { break }
        }
    }
}
