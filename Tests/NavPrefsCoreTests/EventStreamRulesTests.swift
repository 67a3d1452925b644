import NavPrefsCore
import Testing

/// Semantics E-2, E-3 and N-2: where a subscription starts, and what it receives.
@Suite("Event streams: resume positions and filters (semantics E, N)")
struct EventStreamRulesTests {
    @Test("E-2/E-3: the resume plan for every kind of Last-Event-ID", arguments: [
        (String?.none, Int64(1), Int64(10), ReplayPlan.fromNow(after: 10)),
        (nil, 1, 0, .fromNow(after: 0)),
        ("10", 1, 10, .replay(after: 10)),
        ("4", 1, 10, .replay(after: 4)),
        ("0", 1, 10, .replay(after: 0)),
        ("4", 5, 10, .replay(after: 4)),  // the first missing event (5) is still kept
        ("3", 5, 10, .reset(reason: .expired, resumeAfter: 10)),  // 4 was pruned: a silent gap otherwise
        ("0", 2, 10, .reset(reason: .expired, resumeAfter: 10)),
        ("10", 11, 10, .replay(after: 10)),  // nothing kept, nothing missed
        ("9", 11, 10, .reset(reason: .expired, resumeAfter: 10)),
        ("11", 1, 10, .reset(reason: .unknown, resumeAfter: 10)),  // from the future (another database?)
        ("abc", 1, 10, .reset(reason: .unknown, resumeAfter: 10)),
        ("-1", 1, 10, .reset(reason: .unknown, resumeAfter: 10)),
        ("+3", 1, 10, .reset(reason: .unknown, resumeAfter: 10)),
        ("", 1, 10, .reset(reason: .unknown, resumeAfter: 10)),
        ("99999999999999999999", 1, 10, .reset(reason: .unknown, resumeAfter: 10)),
    ])
    func plans(lastEventID: String?, earliest: Int64, latest: Int64, expected: ReplayPlan) {
        #expect(ReplayPlan.plan(lastEventID: lastEventID, earliest: earliest, latest: latest) == expected)
    }

    @Test("N-2: without a filter every type passes; a filter passes its types, and control events always")
    func filters() throws {
        #expect(EventType.allCases.allSatisfy(EventFilter.all.admits))
        let filter = try EventFilter(parsing: "refresh, counter")
        #expect(filter.types == [.refresh, .counter])
        #expect(filter.admits(.refresh) && filter.admits(.counter))
        #expect(!filter.admits(.preference) && !filter.admits(.navigation))
        #expect(filter.admits(.reset) && filter.admits(.shutdown))
    }

    @Test("unknown, control and empty type names are refused in filters",
          arguments: ["bogus", "refresh,Counter", "reset", "shutdown", "", "refresh,,counter", " , "])
    func badFilters(text: String) {
        #expect(throws: EventFilterError.self) { try EventFilter(parsing: text) }
    }
}
