import NavPrefsCore
import NavPrefsJSON
import Testing

/// RFC 7396's merge rules, on values alone (the HTTP table test runs the RFC's Appendix A
/// through the API: Tests/NavPrefsHTTPAPITests/MergePatchAPITests.swift).
@Suite("JSON Merge Patch (RFC 7396)")
struct MergePatchTests {
    private func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test("RFC 7396 Appendix A: every example, the pure function gives the RFC's result", arguments: [
        (1, #"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (2, #"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
        (3, #"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
        (4, #"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
        (5, #"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (6, #"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
        (7, #"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
        (8, #"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
        (9, #"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
        (10, #"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
        (11, #"{"a":"foo"}"#, "null", "null"),
        (12, #"{"a":"foo"}"#, #""bar""#, #""bar""#),
        (13, #"{"e":null}"#, #"{"a":1}"#, #"{"e":null,"a":1}"#),
        (14, "[1,2]", #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
        (15, "{}", #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
    ])
    func appendixA(number: Int, target: String, patch: String, result: String) throws {
        let expected = try json(result)
        #expect(MergePatch.apply(try json(patch), to: try json(target)) == (expected == .null ? nil : expected), "A.\(number)")
    }

    @Test("An object patch merges into nothing as into {}: null members vanish, the rest is kept")
    func absentTarget() throws {
        #expect(MergePatch.apply(try json(#"{"a":{"b":null,"c":1}}"#), to: nil) == (try json(#"{"a":{"c":1}}"#)))
    }

    @Test("A non-object patch replaces the target whole, arrays included (no element-wise merge)")
    func arraysReplace() throws {
        #expect(MergePatch.apply(try json("[null,1]"), to: try json("[2,3,4]")) == (try json("[null,1]")))
        #expect(MergePatch.apply(.integer(5), to: nil) == .integer(5))
    }

    @Test("A top-level null removes the value; removing what is absent leaves it absent")
    func nullRemoves() {
        #expect(MergePatch.apply(.null, to: .string("x")) == nil)
        #expect(MergePatch.apply(.null, to: nil) == nil)
    }

    @Test("Merging keeps the target's member order and appends new members after it")
    func orderKept() throws {
        let merged = MergePatch.apply(try json(#"{"c":3,"a":0}"#), to: try json(#"{"a":1,"b":2}"#))
        guard case .object(let object)? = merged else { Issue.record("not an object"); return }
        #expect(object.keys == ["a", "b", "c"])
        #expect(object["a"] == .integer(0))
    }

    @Test("Null members deep inside an object patch remove at their own depth only")
    func deepRemoval() throws {
        let target = try json(#"{"x":{"y":{"z":1,"w":2},"v":3}}"#)
        let patch = try json(#"{"x":{"y":{"z":null}}}"#)
        #expect(MergePatch.apply(patch, to: target) == (try json(#"{"x":{"y":{"w":2},"v":3}}"#)))
    }
}
