import NavPrefsCore
import NavPrefsJSON

extension TransferRecord {
    /// Reads one line of the format. Strict, as the API is: every member named, of its type, and
    /// no other (a typo in an edited file is an error, not a default).
    /// - Parameter number: the line's number, for the error.
    public init(line: [UInt8], number: Int) throws(TransferError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch {
            throw TransferError(line: number, "not JSON: \(error.message)")
        }
        guard case .object(let object) = value else { throw TransferError(line: number, "a record is a JSON object, not \(value.typeName)") }
        var fields = TransferFields(object: object, line: number)
        let kind = try fields.string("record")
        switch kind {
        case "header":
            let format = try fields.string("format")
            guard format == TransferFormat.name else {
                throw TransferError(line: number, "the format is '\(format.prefix(40))', not '\(TransferFormat.name)'")
            }
            let version = try fields.int64("version")
            var source = TransferFields(object: try fields.object("source"), line: number)
            let header = TransferHeader(formatVersion: Int(clamping: version), navprefsVersion: try source.string("navprefs"),
                                        store: try source.string("store"), includesSecrets: try fields.bool("secrets"))
            try source.finish()
            self = .header(header)
        case "profile":
            self = .profile(TransferProfile(name: try fields.profile("name"), createdAt: try fields.int64("createdAt"),
                                            lastEventID: try fields.int64("lastEventId"),
                                            preferencesVersion: try fields.int64("preferencesVersion")))
        case "defaults":
            self = .defaults(profile: try fields.profile("profile"), version: try fields.int64("version"), values: try fields.carriedValues("values"),
                             lastChange: try fields.lastChange())
        case "preference":
            self = .preference(profile: try fields.profile("profile"), key: try fields.key("key"), version: try fields.int64("version"),
                               value: try fields.carried("value"), lastChange: try fields.lastChange())
        case "tombstone":
            self = .tombstone(profile: try fields.profile("profile"), key: try fields.key("key"), version: try fields.int64("version"),
                              lastChange: try fields.lastChange())
        case "session":
            let profile = try fields.profile("profile")
            let text = try fields.string("id")
            guard let id = try? SessionID(text) else { throw TransferError(line: number, "'\(text.prefix(40))' is not a session id") }
            self = .session(TransferSession(profile: profile, id: id, version: try fields.int64("version"),
                                            createdSequence: try fields.int64("createdSeq"), createdAt: try fields.int64("createdAt"),
                                            state: try fields.carried("state"),
                                            label: fields.has("label") ? try fields.optionalString("label") : nil,
                                            updatedAt: fields.has("updatedAt") ? try fields.int64("updatedAt") : nil))
        case "event":
            self = .event(TransferEvent(profile: try fields.profile("profile"), id: try fields.int64("id"), type: try fields.string("type"),
                                        createdAt: try fields.int64("createdAt"), data: try fields.carried("data")))
        case "token":
            let id = try fields.string("id")
            let profile = try fields.optionalString("profile")
            let scope: ProfileName?
            if let profile {
                guard let name = try? ProfileName(profile) else {
                    throw TransferError(line: number, "'\(profile.prefix(80))' is not a valid profile name")
                }
                scope = name
            } else {
                scope = nil
            }
            self = .token(TokenRecord(id: id, hash: try fields.string("hash"), profile: scope, label: try fields.string("label"),
                                      createdAt: try fields.int64("createdAt")))
        case "secret":
            self = .secret(name: try fields.string("name"), value: try fields.string("value"))
        case "end":
            var counts = TransferCounts()
            counts.profiles = try fields.count("profiles")
            counts.preferences = try fields.count("preferences")
            counts.tombstones = try fields.count("tombstones")
            counts.defaults = try fields.count("defaults")
            counts.sessions = try fields.count("sessions")
            counts.events = try fields.count("events")
            counts.tokens = try fields.count("tokens")
            counts.secrets = try fields.count("secrets")
            self = .end(counts)
        default:
            throw TransferError(line: number, "unknown record '\(kind.prefix(40))'")
        }
        try fields.finish()
    }
}

/// Reads a record's members, remembering which it read, so that ``finish()`` can refuse the rest.
struct TransferFields {
    let object: JSONObject
    let line: Int
    private var read: Set<String> = []

    init(object: JSONObject, line: Int) {
        self.object = object
        self.line = line
    }

    mutating func value(_ name: String) throws(TransferError) -> JSONValue {
        guard let value = object[name] else { throw TransferError(line: line, "'\(name)' is missing") }
        read.insert(name)
        return value
    }

    /// Whether the record has member `name` (for members later versions added).
    func has(_ name: String) -> Bool { object[name] != nil }

    mutating func string(_ name: String) throws(TransferError) -> String {
        guard case .string(let text) = try value(name) else { throw TransferError(line: line, "'\(name)' must be a string") }
        return text
    }

    mutating func optionalString(_ name: String) throws(TransferError) -> String? {
        switch try value(name) {
        case .string(let text): return text
        case .null: return nil
        default: throw TransferError(line: line, "'\(name)' must be a string or null")
        }
    }

    mutating func int64(_ name: String) throws(TransferError) -> Int64 {
        guard case .integer(let number) = try value(name) else { throw TransferError(line: line, "'\(name)' must be an integer") }
        return number
    }

    mutating func count(_ name: String) throws(TransferError) -> Int {
        let number = try int64(name)
        guard number >= 0, let count = Int(exactly: number) else { throw TransferError(line: line, "'\(name)' must be a count") }
        return count
    }

    mutating func bool(_ name: String) throws(TransferError) -> Bool {
        guard case .bool(let flag) = try value(name) else { throw TransferError(line: line, "'\(name)' must be true or false") }
        return flag
    }

    mutating func object(_ name: String) throws(TransferError) -> JSONObject {
        guard case .object(let object) = try value(name) else { throw TransferError(line: line, "'\(name)' must be an object") }
        return object
    }

    mutating func profile(_ name: String) throws(TransferError) -> ProfileName {
        let text = try string(name)
        guard let profile = try? ProfileName(text) else { throw TransferError(line: line, "'\(text.prefix(80))' is not a valid profile name") }
        return profile
    }

    mutating func key(_ name: String) throws(TransferError) -> PreferenceKey {
        let text = try string(name)
        guard let key = try? PreferenceKey(text) else { throw TransferError(line: line, "'\(text.prefix(140))' is not a valid key") }
        return key
    }

    /// A value written as itself (`name`) or, nested deeper than ``JSONDepth/maxInlineDepth``,
    /// as its JSON text (`<name>JSON`).
    mutating func carried(_ name: String) throws(TransferError) -> JSONValue {
        guard has(name + "JSON") else { return try value(name) }
        return try parsedText(try string(name + "JSON"), name: name + "JSON")
    }

    /// Registered defaults as an object (`name`) or, when one of them nests deeper than
    /// ``JSONDepth/maxInlineDepth``, as an object of each key's JSON text (`<name>JSON`).
    mutating func carriedValues(_ name: String) throws(TransferError) -> JSONObject {
        guard has(name + "JSON") else { return try object(name) }
        var values = JSONObject()
        for member in try object(name + "JSON") {
            guard case .string(let text) = member.value else {
                throw TransferError(line: line, "'\(name)JSON' holds JSON texts, not \(member.value.typeName)")
            }
            values[member.key] = try parsedText(text, name: name + "JSON")
        }
        return values
    }

    private func parsedText(_ text: String, name: String) throws(TransferError) -> JSONValue {
        do {
            return try JSONValue.parse(text)
        } catch {
            throw TransferError(line: line, "'\(name)' is not a JSON text: \(error.message)")
        }
    }

    /// `lastChange` (format 2 on): when (`at`, milliseconds) and by whom (`author`, or null);
    /// `nil` when the record has none.
    mutating func lastChange() throws(TransferError) -> LastChange? {
        guard has("lastChange") else { return nil }
        var change = TransferFields(object: try object("lastChange"), line: line)
        let at = try change.int64("at")
        let author: ChangeAuthor?
        switch try change.value("author") {
        case .null: author = nil
        case let value:
            guard let found = ChangeAuthor(value) else {
                throw TransferError(line: line, "'lastChange.author' is an object with the string 'token' and, optionally, 'label' and 'device'")
            }
            author = found
        }
        try change.finish()
        return LastChange(at: at, author: author)
    }

    /// Refuses members nobody read.
    func finish() throws(TransferError) {
        if let unknown = object.keys.first(where: { !read.contains($0) }) {
            throw TransferError(line: line, "unknown member '\(unknown.prefix(40))'")
        }
    }
}
