import NavPrefsCore
import NavPrefsJSON
import Testing

/// Counter rules C-1 to C-8 of shared/docs/semantics.md.
@Suite("Counter (semantics C)")
struct CounterTests {

    @Test("C-1: a never-set counter reads 0, and \"0\" in the seed's string form")
    func c1NeverSet() {
        #expect(Counter.initial.value == 0)
        #expect(Counter.initial.stringValue == "0")
        #expect(CounterState.fresh(.default).counter == .initial)
        #expect(CounterState.fresh(.default).version == .initial)
    }

    @Test("C-2: +1 from 0 is 1, -1 from 0 is -1 (no lower bound at 0), clear from anything is 0", arguments: [
        (Int64(0), CounterOperation.increment(.one), Int64(1)),
        (0, .decrement(.one), -1),
        (-1, .decrement(.one), -2),
        (41, .reset, 0),
        (-41, .reset, 0),
        (0, .reset, 0),
        (Int64.max, .reset, 0),
        (Int64.min, .reset, 0),
    ])
    func c2Buttons(start: Int64, operation: CounterOperation, expected: Int64) throws {
        #expect(try Counter(start).applying(operation) == Counter(expected))
    }

    @Test("C-3: clear stores 0; the counter still reads \"0\" afterwards (it is not removed)")
    func c3ClearKeeps() throws {
        let cleared = try Counter(17).applying(.reset)
        #expect(cleared.stringValue == "0")
    }

    @Test("C-5: the stored form is a base-10 integer string", arguments: [
        (Int64(0), "0"), (7, "7"), (-7, "-7"), (Int64.max, "9223372036854775807"), (Int64.min, "-9223372036854775808"),
    ])
    func c5StringForm(value: Int64, text: String) {
        #expect(Counter(value).stringValue == text)
        #expect(Int64(text) == value)
    }

    @Test("C-7: steps that stay within Int64 succeed, at every boundary", arguments: [
        (Int64.max - 1, CounterOperation.increment(.one), Int64.max),
        (Int64.min + 1, .decrement(.one), Int64.min),
        (0, .increment(try! CounterStep(Int64.max)), Int64.max),
        (-1, .decrement(try! CounterStep(Int64.max)), Int64.min),
        (Int64.min, .increment(try! CounterStep(Int64.max)), -1),
        (Int64.max, .decrement(try! CounterStep(Int64.max)), 0),
        (5, .set(Int64.max), Int64.max),
        (5, .set(Int64.min), Int64.min),
    ])
    func c7WithinRange(start: Int64, operation: CounterOperation, expected: Int64) throws {
        #expect(try Counter(start).applying(operation) == Counter(expected))
    }

    @Test("C-7: overflow and underflow are errors and leave the value unchanged", arguments: [
        (Int64.max, CounterOperation.increment(.one)),
        (Int64.min, .decrement(.one)),
        (1, .increment(try! CounterStep(Int64.max))),
        (-2, .decrement(try! CounterStep(Int64.max))),
        (Int64.max, .increment(try! CounterStep(Int64.max))),
        (Int64.min, .decrement(try! CounterStep(Int64.max))),
    ])
    func c7OutOfRange(start: Int64, operation: CounterOperation) {
        let counter = Counter(start)
        #expect(throws: CounterError.outOfRange(current: start, operation: operation)) {
            try counter.applying(operation)
        }
        #expect(counter.value == start)
    }

    @Test("C-7: the admissible range is exactly the set of values an operation succeeds from")
    func c7AdmissibleRangeAgreesWithApplying() throws {
        let operations: [CounterOperation] = [
            .increment(.one), .decrement(.one), .increment(try CounterStep(Int64.max)), .decrement(try CounterStep(Int64.max)),
            .increment(try CounterStep(1 << 62)), .decrement(try CounterStep(1 << 62)), .reset, .set(3),
        ]
        let probes: [Int64] = [Int64.min, Int64.min + 1, Int64.min + 2, -(1 << 62) - 1, -(1 << 62), -2, -1, 0, 1, 2,
                               (1 << 62) - 1, 1 << 62, Int64.max - 2, Int64.max - 1, Int64.max]
        for operation in operations {
            for value in probes {
                let succeeds = (try? Counter(value).applying(operation)) != nil
                #expect(operation.admissibleRange.contains(value) == succeeds, "\(operation) from \(value)")
            }
        }
    }

    @Test("steps are at least 1", arguments: [Int64(0), -1, Int64.min])
    func invalidSteps(amount: Int64) {
        #expect(throws: CounterError.invalidStep(amount)) { try CounterStep(amount) }
    }

    @Test("operations say how stores apply them: a delta or an assigned value, never both")
    func deltaOrAssignment() throws {
        #expect(CounterOperation.increment(try CounterStep(3)).delta == 3)
        #expect(CounterOperation.decrement(try CounterStep(3)).delta == -3)
        #expect(CounterOperation.decrement(try CounterStep(Int64.max)).delta == -Int64.max)
        #expect(CounterOperation.reset.assignedValue == 0)
        #expect(CounterOperation.set(-9).assignedValue == -9)
        for operation in [CounterOperation.increment(.one), .decrement(.one), .reset, .set(1)] {
            #expect((operation.delta == nil) != (operation.assignedValue == nil))
        }
    }

    @Test("C-8: the seed's key is numIndex")
    func c8SeedKey() {
        #expect(WellKnownKey.counter.rawValue == "numIndex")
    }

    @Test("counter events carry the operation, the step and the new value and version")
    func counterEvent() throws {
        let state = CounterState(profile: try ProfileName("p"), counter: Counter(5), version: Version(9))
        let event = ChangeEvent.counter(.increment(try CounterStep(2)), state)
        #expect(event.type == .counter)
        #expect(event.payload.jsonText == #"{"profile":"p","key":"numIndex","operation":"increment","by":2,"value":5,"stringValue":"5","version":9}"#)
        #expect(ChangeEvent.counter(.reset, state).payload["by"] == nil)
    }

    @Test("a counter event's logged text, written directly, is its payload written by JSONWriter")
    func counterEventText() throws {
        for (value, version) in [(Int64(5), Int64(9)), (Int64.min, 1), (Int64.max, Int64.max), (0, 0)] {
            let state = CounterState(profile: try ProfileName("a.b_c-1"), counter: Counter(value), version: Version(version))
            for operation in [CounterOperation.increment(try CounterStep(7)), .decrement(.one), .reset, .set(value)] {
                let event = ChangeEvent.counter(operation, state)
                #expect(event.data == event.payload.jsonText, "\(operation) at \(value)")
            }
            let removed = ChangeEvent.counter(operation: "remove", state)
            #expect(removed.data == removed.payload.jsonText)
            // An operation name that needs escaping is written by JSONWriter.
            let odd = ChangeEvent.counter(operation: "a\"b", state)
            #expect(odd.data == odd.payload.jsonText && odd.data.contains(#""a\"b""#))
        }
    }
}

extension JSONObject {
    fileprivate var jsonText: String { JSONValue.object(self).jsonText }
}
