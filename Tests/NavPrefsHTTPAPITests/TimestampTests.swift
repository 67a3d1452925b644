import Foundation
import NavPrefsCore
@testable import NavPrefsHTTPAPI
import Testing

/// The API's and the log's timestamps (`Timestamp.rfc3339`, computed in Swift): Foundation's
/// Gregorian calendar in UTC is the oracle.
@Suite("Timestamps: RFC 3339 against Foundation's calendar")
struct TimestampTests {
    static func foundation(_ seconds: Int) -> (Int, Int, Int, Int, Int, Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                            from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return (parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!)
    }

    static func swift(_ seconds: Int) -> (Int, Int, Int, Int, Int, Int) {
        // `2026-11-30T05:03:30.000Z`, read back field by field.
        let text = Timestamp.rfc3339(milliseconds: Int64(seconds) * 1000)
        let fields = text.split(whereSeparator: { "-T:.Z".contains($0) }).compactMap { Int($0) }
        guard fields.count == 7 else { return (0, 0, 0, 0, 0, -1) }
        return (fields[0], fields[1], fields[2], fields[3], fields[4], fields[5])
    }

    @Test("the edges: the epoch, leap days (2000, 2024; none in 2100), a year's last second, before 1970",
          arguments: [0, -1, -86_400, 951_782_400, 951_868_799, 1_709_164_800, 1_735_689_599,
                      4_107_542_400, 4_102_444_799, 253_402_300_799])
    func edges(seconds: Int) {
        #expect(Self.swift(seconds) == Self.foundation(seconds), "\(seconds) s since 1970")
    }

    @Test("10,000 seeded instants from 1900 to 2200 (seed 20261203)")
    func seeded() {
        var generator = SeededGenerator(seed: 20_261_203)
        var differing: [Int] = []
        for _ in 0..<10_000 {
            let seconds = Int.random(in: -2_208_988_800...7_258_118_400, using: &generator)
            if Self.swift(seconds) != Self.foundation(seconds) { differing.append(seconds) }
        }
        #expect(differing.isEmpty, "first differing: \(differing.prefix(5))")
    }

    @Test("now() is the wall clock's time, to the second, in RFC 3339 with milliseconds")
    func now() throws {
        let text = TimestampFormatter().now()
        #expect(text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(text)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(formatter.date(from: text))
        #expect(abs(date.timeIntervalSinceNow) < 2, "\(text) against \(Date())")
    }
}
