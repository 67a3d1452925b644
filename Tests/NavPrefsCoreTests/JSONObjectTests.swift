import NavPrefsCore
import Testing

/// ``JSONObject`` below and above the size from which it indexes its names: the same answers as
/// a plain list of members searched one by one (the model), whatever the operations.
@Suite("JSON objects: members in order, names by their bytes, small and wide alike")
struct JSONObjectTests {
    /// The model: members in order, found by a search of their names' bytes.
    struct Model {
        var members: [(key: [UInt8], value: JSONValue)] = []

        mutating func set(_ key: String, _ value: JSONValue?) {
            let bytes = Array(key.utf8)
            if let index = members.firstIndex(where: { $0.key == bytes }) {
                if let value { members[index].value = value } else { members.remove(at: index) }
            } else if let value {
                members.append((bytes, value))
            }
        }

        func matches(_ object: JSONObject) -> Bool {
            object.count == members.count
                && zip(object.members, members).allSatisfy { Array($0.key.utf8) == $1.key && $0.value == $1.value }
                && members.allSatisfy { object[String(decoding: $0.key, as: UTF8.self)] == $0.value }
        }
    }

    @Test("Sets and removals in a scrambled order agree with the model, across the indexing size", arguments: [1, 2, 3, 4])
    func scrambledOperations(pattern: Int) {
        var object = JSONObject()
        var model = Model()
        // Few distinct names for some patterns (many replacements), many for others (growth past the index size).
        let names = (0..<(pattern.isMultiple(of: 2) ? 12 : 300)).map { "k\($0)" } + ["é", "e\u{301}"]
        for step in 0..<3_000 {
            // Steps of coprime strides visit the names in a scrambled order that repeats exactly.
            let key = names[(step * 7_919 + pattern * 31) % names.count]
            let value: JSONValue? = (step * 13 + pattern) % 4 == 0 ? nil : .integer(Int64(step))
            object[key] = value
            model.set(key, value)
            if step % 97 == 0 { #expect(model.matches(object), "pattern \(pattern), step \(step)") }
        }
        #expect(model.matches(object), "pattern \(pattern)")
    }

    @Test("Names that Swift calls equal but whose bytes differ are two members, small or wide")
    func namesByBytes() {
        for filler in [0, 40] {
            var object = JSONObject((0..<filler).map { ("f\($0)", JSONValue.integer(Int64($0))) })
            object["é"] = .integer(1)
            object["e\u{301}"] = .integer(2)
            #expect(object.count == filler + 2)
            #expect(object["é"] == .integer(1) && object["e\u{301}"] == .integer(2))
        }
    }

    @Test("A wide object built from members keeps their order and the last value of a repeated name")
    func wideConstruction() {
        let count = 20_000
        var members = (0..<count).map { ("key\($0)", JSONValue.integer(Int64($0))) }
        members.append(("key7", .string("again")))
        let object = JSONObject(members)
        #expect(object.count == count)
        #expect(object.keys.prefix(3) == ["key0", "key1", "key2"])
        #expect(object["key7"] == .string("again"))
        #expect(object["key19999"] == .integer(19_999))
        #expect(object["key20000"] == nil)
        let unique = JSONObject(uniqueMembers: (0..<count).map { (key: "key\($0)", value: JSONValue.integer(Int64($0))) })
        #expect(unique["key12345"] == .integer(12_345))
        #expect(unique == JSONObject(uniqueMembers: unique.members.reversed()))
        #expect(unique.hashValue == JSONObject(uniqueMembers: unique.members.reversed()).hashValue)
    }

    @Test("Removing from a wide object keeps every later member findable")
    func wideRemoval() {
        var object = JSONObject(uniqueMembers: (0..<100).map { (key: "k\($0)", value: JSONValue.integer(Int64($0))) })
        object["k10"] = nil
        object["k50"] = nil
        #expect(object.count == 98)
        #expect(object["k99"] == .integer(99) && object["k11"] == .integer(11) && object["k10"] == nil)
        for index in 0..<90 { object["k\(index)"] = nil }
        #expect(object.keys == (90..<100).map { "k\($0)" })
        #expect(object["k95"] == .integer(95))
    }

    @Test("merging: wide and small, each name combined once, places kept, new names after, nil removes",
          arguments: [(5, 4), (5, 40), (40, 5), (3_000, 3_000)])
    func merging(targetCount: Int, patchCount: Int) {
        let target = JSONObject(uniqueMembers: (0..<targetCount).map { (key: "t\($0)", value: JSONValue.integer(Int64($0))) })
        // Every third patch member names a target member: removed when even, replaced when odd.
        let patch = JSONObject(uniqueMembers: (0..<patchCount).map { (index: Int) -> JSONObject.Member in
            guard index % 3 == 0 else { return (key: "p\(index)", value: .integer(Int64(index))) }
            let value: JSONValue = index % 2 == 0 ? .null : .string("new\(index)")
            return (key: "t\(index)", value: value)
        })
        let merged = target.merging(patch) { (_: JSONValue?, given: JSONValue) -> JSONValue? in given == JSONValue.null ? nil : given }
        var model = Model()
        for member in target { model.set(member.key, member.value) }
        for member in patch { model.set(member.key, member.value == JSONValue.null ? nil : member.value) }
        #expect(model.matches(merged))
    }
}
