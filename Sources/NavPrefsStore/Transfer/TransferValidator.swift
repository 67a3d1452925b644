public import NavPrefsCore

/// Checks, record by record, that a file is one the store can serve exactly as its source did:
/// records in the format's order, each belonging to the profile before it, versions and event
/// ids within the profile's sequence, values in the form their keys' views read, sessions that
/// decode. It remembers one profile at a time (profiles come in byte order of their names, so
/// a repeated one shows without remembering them all): memory stays bounded whatever the file.
public struct TransferValidator {
    private enum Section: Int, Comparable {
        case start, profiles, tokens, secrets, end
        static func < (lhs: Section, rhs: Section) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What the current profile has had so far.
    private struct ProfileState {
        let profile: TransferProfile
        var sawDefaults = false
        var keys: Set<PreferenceKey> = []
        var sessions: Set<SessionID> = []
        var lastEvent: Int64 = 0
    }

    public private(set) var header: TransferHeader?
    /// The records checked so far.
    public private(set) var counts = TransferCounts()
    private var section = Section.start
    private var current: ProfileState?
    private var previousProfile: ProfileName?
    private var tokenIDs: Set<String> = []
    private var secretNames: Set<String> = []

    public init() {}

    /// Whether the `end` record has been checked.
    public var isComplete: Bool { section == .end }

    /// Checks `record`, read from line `line`. Answers the session's decoded state for a
    /// `session` record (the store keeps its depth, root and top beside it).
    @discardableResult
    public mutating func check(_ record: TransferRecord, line: Int) throws(TransferError) -> NavigationSession? {
        func fail(_ message: String) -> TransferError { TransferError(line: line, message) }
        if case .header = record {} else if header == nil { throw fail("the first line must be the header") }
        guard section != .end else { throw fail("nothing may follow the end record") }
        switch record {
        case .header(let found):
            guard header == nil, line == 1 else { throw fail("a second header") }
            guard found.formatVersion >= 1 else { throw fail("format version \(found.formatVersion) does not exist") }
            guard found.formatVersion <= TransferFormat.version else {
                throw fail("written by a newer navprefs (format version \(found.formatVersion)); this navprefs reads up to version \(TransferFormat.version)")
            }
            header = found
        case .profile(let profile):
            try enter(.profiles, line)
            if let previousProfile, !(previousProfile < profile.name) {
                throw fail("profile '\(profile.name)' after '\(previousProfile)': profiles come once each, in byte order of their names")
            }
            guard profile.lastEventID >= 0 else { throw fail("lastEventId must not be negative") }
            guard (0...profile.lastEventID).contains(profile.preferencesVersion) else {
                throw fail("preferencesVersion \(profile.preferencesVersion) is outside 0...lastEventId (\(profile.lastEventID))")
            }
            previousProfile = profile.name
            current = ProfileState(profile: profile)
            counts.profiles += 1
        case .defaults(let profile, let version, let values, _):
            var state = try owner(profile, line)
            guard !state.sawDefaults else { throw fail("a second defaults record for '\(profile)'") }
            try checkVersion(version, of: state.profile, line)
            for member in values {
                guard let key = try? PreferenceKey(member.key) else { throw fail("'\(member.key.prefix(140))' is not a valid key") }
                try checkStoredForm(member.value, of: key, line)
            }
            state.sawDefaults = true
            current = state
            counts.defaults += 1
        case .preference(let profile, let key, let version, let value, _):
            var state = try owner(profile, line)
            guard state.keys.insert(key).inserted else { throw fail("a second record for key '\(key)' of '\(profile)'") }
            try checkVersion(version, of: state.profile, line)
            guard value != .null else { throw fail("a stored value cannot be null (a removed key is a tombstone)") }
            try checkStoredForm(value, of: key, line)
            current = state
            counts.preferences += 1
        case .tombstone(let profile, let key, let version, _):
            var state = try owner(profile, line)
            guard state.keys.insert(key).inserted else { throw fail("a second record for key '\(key)' of '\(profile)'") }
            try checkVersion(version, of: state.profile, line)
            current = state
            counts.tombstones += 1
        case .session(let session):
            var state = try owner(session.profile, line)
            guard state.sessions.insert(session.id).inserted else { throw fail("a second record for session '\(session.id)'") }
            try checkVersion(session.version, of: state.profile, line)
            guard (1...session.version).contains(session.createdSequence) else {
                throw fail("createdSeq \(session.createdSequence) is outside 1...version (\(session.version))")
            }
            let decoded: NavigationSession
            do {
                decoded = try NavigationSession(json: session.state)
            } catch {
                throw fail("the state of session '\(session.id)' does not decode: \(error)")
            }
            current = state
            counts.sessions += 1
            return decoded
        case .event(let event):
            var state = try owner(event.profile, line)
            guard event.id > state.lastEvent else { throw fail("event \(event.id) after event \(state.lastEvent): ids come once each, ascending") }
            guard event.id <= state.profile.lastEventID else {
                throw fail("event \(event.id) is newer than the profile's lastEventId (\(state.profile.lastEventID))")
            }
            guard let type = EventType(rawValue: event.type), ![.reset, .shutdown].contains(type) else {
                throw fail("'\(event.type.prefix(40))' is not an event type the log keeps")
            }
            guard case .object = event.data else { throw fail("an event's data is a JSON object") }
            state.lastEvent = event.id
            current = state
            counts.events += 1
        case .token(let token):
            try enter(.tokens, line)
            guard token.id.utf8.count == 12, Self.isLowercaseHex(token.id) else { throw fail("a token id is 12 lowercase hex digits") }
            guard token.hash.utf8.count == 64, Self.isLowercaseHex(token.hash) else { throw fail("a token hash is 64 lowercase hex digits") }
            guard tokenIDs.insert(token.id).inserted else { throw fail("a second token with id '\(token.id)'") }
            guard token.label.unicodeScalars.count <= 200, !token.label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw fail("a token label is at most 200 characters, none a control character") }
            counts.tokens += 1
        case .secret(let name, _):
            try enter(.secrets, line)
            guard header?.includesSecrets == true else { throw fail("a secret in a file whose header says it has none") }
            guard !name.isEmpty, secretNames.insert(name).inserted else { throw fail("a secret needs a name of its own") }
            counts.secrets += 1
        case .end(let stated):
            guard stated == counts else {
                throw fail("the end record counts \(stated), but the file holds \(counts): it was changed or cut")
            }
            section = .end
            current = nil
        }
        return nil
    }

    /// Moves on to `next`; sections never come back.
    private mutating func enter(_ next: Section, _ line: Int) throws(TransferError) {
        guard section <= next else { throw TransferError(line: line, "profiles, then tokens, then secrets: this record comes too late") }
        if next != .profiles { current = nil }
        section = next
    }

    /// The current profile, which must be `profile`.
    private func owner(_ profile: ProfileName, _ line: Int) throws(TransferError) -> ProfileState {
        guard section == .profiles, let current, current.profile.name == profile else {
            throw TransferError(line: line, "a record of '\(profile)' must follow that profile's record")
        }
        return current
    }

    private func checkVersion(_ version: Int64, of profile: TransferProfile, _ line: Int) throws(TransferError) {
        guard version >= 1, version <= profile.lastEventID else {
            throw TransferError(line: line, "version \(version) is outside 1...lastEventId (\(profile.lastEventID)) of '\(profile.name)'")
        }
    }

    /// A well-known key's value must be in the form its view reads (`numIndex` an integer
    /// string...): otherwise the counter statement would fail on it later.
    private func checkStoredForm(_ value: JSONValue, of key: PreferenceKey, _ line: Int) throws(TransferError) {
        guard let stored = try? TransactionSteps.storedValue(value, for: key), stored == value else {
            throw TransferError(line: line, "'\(key)' holds \(value.jsonText.prefix(60)), which its view cannot read")
        }
    }

    private static func isLowercaseHex(_ text: String) -> Bool {
        text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
