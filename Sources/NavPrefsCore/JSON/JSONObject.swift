/// A JSON object: members in the order given, keys unique (the parser rejects duplicates).
/// Two objects are equal when they have the same members, whatever their order.
///
/// Member names compare by their UTF-8 bytes, as RFC 8259 §8.3 and Foundation compare them:
/// `"é"` and `"e\u{301}"` are two members, although Swift's `==` calls the strings equal.
///
/// Why an index: a request body's object can hold tens of thousands of members, and building,
/// comparing or merging objects with a search of the members for each key is quadratic (60,000
/// short keys held the event loop for 27 s). An object of ``indexedFrom`` members or more keeps
/// their positions by name, so every operation here is linear in the members it touches;
/// smaller ones search, which is faster than hashing for a handful of members.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Member = (key: String, value: JSONValue)

    public private(set) var members: [Member]
    /// Each member's position by name, for objects of ``indexedFrom`` members or more.
    private var positions: [MemberName: Int]?

    /// From how many members an object keeps an index of its names.
    static let indexedFrom = 16

    public init() {
        members = []
        positions = nil
    }

    /// Members in order; a repeated key replaces the earlier value in place.
    public init(_ members: [(String, JSONValue)]) {
        self.init()
        self.members.reserveCapacity(members.count)
        for (key, value) in members { self[key] = value }
    }

    /// Members whose names are known to be unique (a parser that rejects duplicates, another
    /// object's members): taken as they are, without a lookup each.
    public init(uniqueMembers members: [Member]) {
        self.members = members
        positions = members.count >= Self.indexedFrom ? Self.index(of: members) : nil
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let index = position(of: key) {
                if let newValue { members[index].value = newValue } else { removeMember(at: index) }
            } else if let newValue {
                append(key, newValue)
            }
        }
    }

    public var keys: [String] { members.map(\.key) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

    /// This object with each member of `other` combined in, in `other`'s order: `combine` gets
    /// the value this object holds under the member's name (`nil`: none) and the member's value,
    /// and answers the value to hold (`nil` removes the member). Members keep their places; new
    /// ones follow. Linear in both objects' members (RFC 7396's merge is one use).
    public func merging(_ other: JSONObject, _ combine: (_ current: JSONValue?, _ given: JSONValue) -> JSONValue?) -> JSONObject {
        if positions == nil && members.count + other.count < Self.indexedFrom {
            var merged = self
            for (key, value) in other.members { merged[key] = combine(merged[key], value) }
            return merged
        }
        var positions = self.positions ?? Self.index(of: members)
        var slots: [Member?] = members.map { $0 }
        for (key, value) in other.members {
            let name = MemberName(key)
            if let at = positions[name], let current = slots[at] {
                // `other`'s names are unique: each place is visited once.
                slots[at] = combine(current.value, value).map { (key: current.key, value: $0) }
            } else if let added = combine(nil, value) {
                positions[name] = slots.count
                slots.append((key: key, value: added))
            }
        }
        return JSONObject(uniqueMembers: slots.compactMap { $0 })
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.count == rhs.count && lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent, to agree with ==.
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(MemberName(member.key))
            memberHasher.combine(member.value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(combined)
        hasher.combine(count)
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[MemberName(key)] }
        return members.firstIndex { $0.key.utf8.elementsEqual(key.utf8) }
    }

    private mutating func append(_ key: String, _ value: JSONValue) {
        members.append((key: key, value: value))
        if positions != nil {
            positions?[MemberName(key)] = members.count - 1
        } else if members.count >= Self.indexedFrom {
            positions = Self.index(of: members)
        }
    }

    private mutating func removeMember(at index: Int) {
        members.remove(at: index)
        // The members after it moved: as linear as the removal itself.
        if positions != nil { positions = members.count >= Self.indexedFrom ? Self.index(of: members) : nil }
    }

    private static func index(of members: [Member]) -> [MemberName: Int] {
        var positions: [MemberName: Int] = [:]
        positions.reserveCapacity(members.count)
        for (offset, member) in members.enumerated() { positions[MemberName(member.key)] = offset }
        return positions
    }
}

/// A member name as ``JSONObject`` compares it: by its UTF-8 bytes, hashed alike.
struct MemberName: Hashable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (lhs: MemberName, rhs: MemberName) -> Bool {
        lhs.text.utf8.count == rhs.text.utf8.count && lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        for byte in text.utf8 { hasher.combine(byte) }
    }
}
