import Foundation
import NavPrefsCore
import Testing

@Suite("Authors: device names, authors, times")
struct AuthorTests {
    @Test("a device name decodes from visible ASCII and percent-escapes of UTF-8", arguments: [
        ("kitchen-ipad", "kitchen-ipad"),
        ("Ana%E2%80%99s iPhone", "Ana’s iPhone"),
        ("100%25", "100%"),
        ("%f0%9f%93%b1", "📱"),
        ("%41", "A"),
        ("%20%20", "  "),
        (String(repeating: "é", count: 64).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "", String(repeating: "é", count: 64)),
    ])
    func decodes(field: String, name: String) throws {
        #expect(try DeviceName.parse(field: field)?.rawValue == name)
    }

    @Test("an empty value names no device")
    func empty() throws {
        #expect(try DeviceName.parse(field: "") == nil)
    }

    @Test("what is not a device name says why", arguments: [
        ("tab\there", DeviceNameError.controlCharacter),
        ("del\u{7F}", .controlCharacter),
        ("%0A", .controlCharacter),
        ("%C2%9B", .controlCharacter),
        ("café", .notASCII),
        ("50%", .brokenEscape),
        ("%4", .brokenEscape),
        ("%zz", .brokenEscape),
        ("%C3", .notUTF8),
        ("%ED%A0%80", .notUTF8),
        ("%C0%80", .notUTF8),
        (String(repeating: "x", count: 65), .tooLong(65)),
    ])
    func refuses(field: String, error: DeviceNameError) {
        #expect(throws: error) {
            _ = try DeviceName.parse(field: field)
        }
    }

    @Test("an author as JSON and back; the open mode has no label; a person reads the device, else the label")
    func authorJSON() {
        let token = ChangeAuthor(token: "94571c6fefa3", label: "ops", device: "kitchen-ipad")
        #expect(token.json.jsonText == #"{"token":"94571c6fefa3","label":"ops","device":"kitchen-ipad"}"#)
        #expect(ChangeAuthor(token.json) == token)
        let open = ChangeAuthor(token: nil, label: "ignored", device: nil)
        #expect(open.json.jsonText == #"{"token":"open"}"#)
        #expect(open.displayName == "the open mode")
        #expect(ChangeAuthor(token: "94571c6fefa3", label: "ops", device: nil).displayName == "ops")
        #expect(ChangeAuthor(.object(["token": .integer(1)])) == nil)
        #expect(ChangeAuthor(.object(["token": .string("open"), "device": .null])) == nil)
    }

    @Test("an author goes last in its event's data; the event names its history")
    func authoredEvent() throws {
        let event = ChangeEvent.preference(try ProfileName("ana"), key: try PreferenceKey("theme"), value: .string("dark"), visible: nil,
                                           version: Version(3))
        #expect(event.authored(by: ChangeAuthor(token: nil, label: nil, device: "tv")).data
            == #"{"profile":"ana","key":"theme","value":"dark","version":3,"author":{"token":"open","device":"tv"}}"#)
        #expect(event.subject == "theme")
        #expect(HistorySubject.of(WellKnownKey.fontSize) == HistorySubject.font)
        #expect(HistorySubject.of(WellKnownKey.counter) == "numIndex")
        #expect(ChangeEvent.defaults(try ProfileName("ana"), [:], version: Version(1)).subject == nil)
    }

    @Test("an authored counter event's text, extended with the author's written text, is its authored payload written by JSONWriter")
    func authoredCounterText() throws {
        let state = CounterState(profile: try ProfileName("ana"), counter: Counter(-3), version: Version(12))
        let authors = [ChangeAuthor(token: nil, label: nil, device: nil), ChangeAuthor(token: nil, label: nil, device: "Ana\u{2019}s \"tv\"\\"),
                       ChangeAuthor(token: "94571c6fefa3", label: "ops\n", device: "kitchen-ipad")]
        for author in authors {
            for operation in [CounterOperation.increment(.one), .decrement(try CounterStep(5)), .reset, .set(-3)] {
                let event = ChangeEvent.counter(operation, state)
                let extended = event.authored(by: author, writtenAs: author.json.jsonText)
                #expect(extended.data == JSONValue.object(extended.payload).jsonText, "\(operation) by \(author)")
                #expect(extended.data == event.authored(by: author).data)
                #expect(extended.payload["author"] == author.json)
            }
        }
        // A payload that names an author already is written again, with the new one in its place.
        let first = ChangeEvent.counter(.reset, state).authored(by: authors[0])
        let again = first.authored(by: authors[2], writtenAs: authors[2].json.jsonText)
        #expect(again.data == JSONValue.object(again.payload).jsonText && again.payload["author"] == authors[2].json)
    }

    /// Foundation's ISO 8601 formatter is the oracle, over times from 1970 to 9999: a stride
    /// whose step is no round number, so that the milliseconds, seconds and days all vary.
    @Test("times are written as Foundation's ISO 8601 formatter writes them")
    func timestamps() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let times = [0, 1, 999, 1000, 86_399_999, 951_782_400_000, 1_796_137_782_351, 253_402_300_799_999]
            + Array(stride(from: Int64(7), to: 253_402_300_800_000, by: 126_701_150_437))
        for milliseconds in times {
            #expect(Timestamp.rfc3339(milliseconds: milliseconds)
                == formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000)), "\(milliseconds)")
        }
    }
}
