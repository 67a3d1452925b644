import NavPrefsCore
@testable import NavPrefsStore
import Testing

/// The transfer format's lines, read and checked without a store: every refusal names its line.
@Suite("Transfer format: reading and checking lines")
struct TransferFormatTests {
    static let header = #"{"record":"header","format":"navprefs-export","version":1,"source":{"navprefs":"0.5.0","store":"sqlite"},"secrets":false}"#
    static let ana = #"{"record":"profile","name":"ana","createdAt":1,"lastEventId":3,"preferencesVersion":2}"#

    /// Checks `lines` in order; answers the first refusal.
    static func firstError(_ lines: [String]) -> String? {
        var validator = TransferValidator()
        for (index, line) in lines.enumerated() {
            do {
                try validator.check(try TransferRecord(line: Array(line.utf8), number: index + 1), line: index + 1)
            } catch {
                return "\(error)"
            }
        }
        return nil
    }

    @Test("a valid file reads, and every record encodes back to its line")
    func validFile() throws {
        let lines = [
            Self.header, Self.ana,
            #"{"record":"defaults","profile":"ana","version":1,"values":{"numIndex":"4","b":[1,1.0]}}"#,
            #"{"record":"preference","profile":"ana","key":"numIndex","version":2,"value":"7"}"#,
            #"{"record":"tombstone","profile":"ana","key":"theme","version":3}"#,
            #"{"record":"event","profile":"ana","id":3,"type":"preference","createdAt":5,"data":{"a":1}}"#,
            #"{"record":"token","id":"0123456789ab","profile":null,"label":"ops","createdAt":1,"hash":"\#(String(repeating: "e", count: 64))"}"#,
            #"{"record":"end","profiles":1,"preferences":1,"tombstones":1,"defaults":1,"sessions":0,"events":1,"tokens":1,"secrets":0}"#,
        ]
        #expect(Self.firstError(lines) == nil)
        for (index, line) in lines.enumerated() {
            #expect(try TransferRecord(line: Array(line.utf8), number: index + 1).line == line)
        }
    }

    @Test("each broken line is refused with its number and what is wrong", arguments: [
        ([ana], "line 1: the first line must be the header"),
        ([header, "{not json"], "line 2: not JSON"),
        ([header, #"{"record":"profile","name":"ana","createdAt":1,"lastEventId":3,"preferencesVersion":2,"extra":1}"#],
         "line 2: unknown member 'extra'"),
        ([header, ana, #"{"record":"profile","name":"ana","createdAt":1,"lastEventId":0,"preferencesVersion":0}"#],
         "line 3: profile 'ana' after 'ana'"),
        ([header, #"{"record":"event","profile":"ana","id":1,"type":"counter","createdAt":1,"data":{}}"#],
         "line 2: a record of 'ana' must follow that profile's record"),
        ([header, ana, #"{"record":"event","profile":"ana","id":4,"type":"counter","createdAt":1,"data":{}}"#],
         "line 3: event 4 is newer than the profile's lastEventId (3)"),
        ([header, ana, #"{"record":"event","profile":"ana","id":1,"type":"reset","createdAt":1,"data":{}}"#],
         "line 3: 'reset' is not an event type the log keeps"),
        ([header, ana, #"{"record":"preference","profile":"ana","key":"numIndex","version":1,"value":"one"}"#],
         "line 3: 'numIndex' holds \"one\", which its view cannot read"),
        ([header, ana, #"{"record":"preference","profile":"ana","key":"x","version":9,"value":1}"#],
         "line 3: version 9 is outside 1...lastEventId (3) of 'ana'"),
        ([header, ana, #"{"record":"session","profile":"ana","id":"0123456789abcdef0123456789abcdef","version":1,"createdSeq":1,"createdAt":1,"state":{}}"#],
         "line 3: the state of session '0123456789abcdef0123456789abcdef' does not decode"),
        ([header, #"{"record":"secret","name":"k","value":"v"}"#], "line 2: a secret in a file whose header says it has none"),
        ([header, #"{"record":"end","profiles":1,"preferences":0,"tombstones":0,"defaults":0,"sessions":0,"events":0,"tokens":0,"secrets":0}"#],
         "line 2: the end record counts 1 profile, 0 values"),
        ([#"{"record":"header","format":"navprefs-export","version":3,"source":{"navprefs":"9","store":"sqlite"},"secrets":false}"#],
         "line 1: written by a newer navprefs (format version 3); this navprefs reads up to version 2"),
        ([#"{"record":"header","format":"csv","version":1,"source":{"navprefs":"9","store":"sqlite"},"secrets":false}"#],
         "line 1: the format is 'csv', not 'navprefs-export'"),
    ])
    func refusals(lines: [String], expected: String) {
        let error = Self.firstError(lines)
        #expect(error?.hasPrefix(expected) == true, "\(error ?? "no error")")
    }
}
