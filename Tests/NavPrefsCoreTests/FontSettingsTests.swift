import NavPrefsCore
import NavPrefsJSON
import Testing

/// Seed 001's font settings, semantics F-1..F-5, and the typed views of well-known keys.
@Suite("Font settings (semantics F)")
struct FontSettingsTests {
    @Test("F-1: the slider is rounded half away from zero", arguments: [
        (2.5, 3.0), (-2.5, -3.0), (0.5, 1.0), (-0.5, -1.0), (2.4999, 2.0), (-2.4999, -2.0),
        (2.4, 2.0), (2.6, 3.0), (0.0, 0.0), (-0.0, 0.0), (1000.4, 1000.0), (-1000.4, -1000.0),
    ])
    func f1Rounding(input: Double, rounded: Double) throws {
        #expect(try FontSettings.settingSlider(to: input).sliderValue == rounded)
    }

    @Test("F-2: the stored font size is the rounded slider plus 17", arguments: [(3.0, 20.0), (2.5, 20.0), (-17.0, 0.0), (0.0, 17.0)])
    func f2FontSize(slider: Double, fontSize: Double) throws {
        #expect(try FontSettings.settingSlider(to: slider).fontSize == fontSize)
    }

    @Test("F-3/F-4: the effective size is the stored size above 0, else 17", arguments: [
        (20.0, 20.0), (0.5, 0.5), (0.0, 17.0), (-3.0, 17.0), (-0.0001, 17.0),
    ])
    func f3EffectiveSize(stored: Double, effective: Double) {
        #expect(FontSettings(sliderValue: 0, fontSize: stored).effectiveFontSize == effective)
    }

    @Test("F-4: slider -17 stores 0 and reads 17; slider -20 stores -3 and reads 17")
    func f4NegativeSlider() throws {
        let minus17 = try FontSettings.settingSlider(to: -17)
        #expect(minus17.fontSize == 0)
        #expect(minus17.effectiveFontSize == 17)
        let minus20 = try FontSettings.settingSlider(to: -20)
        #expect(minus20.fontSize == -3)
        #expect(minus20.effectiveFontSize == 17)
    }

    @Test("F-3/F-5: never set, the slider reads 0 and the size 17; other stored forms are read as float(forKey:) does")
    func f5NeverSet() {
        let fresh = FontSettings(reading: nil, fontSize: nil)
        #expect(fresh.sliderValue == 0)
        #expect(fresh.fontSize == 0)
        #expect(fresh.effectiveFontSize == 17)
        let fromText = FontSettings(reading: .string("4"), fontSize: .string("21.5"))
        #expect(fromText.sliderValue == 4)
        #expect(fromText.effectiveFontSize == 21.5)
    }

    @Test("slider values that are not finite or outside ±1000 are refused", arguments: [
        Double.nan, .infinity, -.infinity, 1000.5, -1000.5, 1e9,
    ])
    func refused(value: Double) {
        #expect(throws: FontSettingsError.self) { try FontSettings.settingSlider(to: value) }
    }

    @Test("font views take the newer version of their two keys")
    func fontStateVersion() throws {
        let slider = PreferenceSlot(key: WellKnownKey.sliderValue, stored: .init(value: .number(3), version: Version(4)),
                                    registered: nil, defaultsVersion: Version(1))
        let size = PreferenceSlot(key: WellKnownKey.fontSize, stored: nil, removedAt: Version(9), registered: nil,
                                  defaultsVersion: Version(1))
        let state = FontState(profile: .default, slider: slider, fontSize: size)
        #expect(state.version == Version(9), "a removal is a change too")
        #expect(state.settings == FontSettings(sliderValue: 3, fontSize: 0))
    }
}

/// What may be stored under the seeds' keys, through any route.
@Suite("Well-known keys keep their views working")
struct WellKnownKeyTests {
    @Test("numIndex takes an integer or its canonical base-10 string, stored as the string (C-5)", arguments: [
        (JSONValue.integer(7), JSONValue?.some(.string("7"))),
        (.integer(-7), .string("-7")),
        (.number(7.0), .string("7")),
        (.string("7"), .string("7")),
        (.string("-9223372036854775808"), .string("-9223372036854775808")),
        (.string("007"), nil),
        (.string("+7"), nil),
        (.string("7.0"), nil),
        (.string(" 7"), nil),
        (.string("9223372036854775808"), nil),
        (.number(7.5), nil),
        (.bool(true), nil),
        (.array([]), nil),
    ])
    func counterKey(value: JSONValue, stored: JSONValue?) {
        #expect((try? WellKnownKey.storedForm(of: value, for: WellKnownKey.counter)) == stored)
    }

    @Test("fontSizekey takes a number in the sizes the slider makes; sliderValuekey a whole number in its range", arguments: [
        (WellKnownKey.fontSize, JSONValue.number(20.5), JSONValue?.some(.number(20.5))),
        (WellKnownKey.fontSize, .integer(20), .number(20)),
        (WellKnownKey.fontSize, .number(-983), .number(-983)),
        (WellKnownKey.fontSize, .number(1018), nil),
        (WellKnownKey.fontSize, .string("20"), nil),
        (WellKnownKey.sliderValue, .integer(3), .number(3)),
        (WellKnownKey.sliderValue, .number(2.5), nil),
        (WellKnownKey.sliderValue, .number(-1001), nil),
        (WellKnownKey.sliderValue, .bool(false), nil),
    ])
    func fontKeys(key: PreferenceKey, value: JSONValue, stored: JSONValue?) {
        #expect((try? WellKnownKey.storedForm(of: value, for: key)) == stored)
    }

    @Test("other keys keep any value exactly")
    func otherKeys() throws {
        let key = try PreferenceKey("anything")
        for value in [JSONValue.number(1.0), .integer(1), .string("007"), .array([.null]), .object(["a": .bool(true)])] {
            #expect(try WellKnownKey.storedForm(of: value, for: key) == value)
        }
    }

    @Test("the views: numIndex is the counter, the two font keys the font settings", arguments: [
        ("numIndex", WellKnownKey.View.counter), ("fontSizekey", .font), ("sliderValuekey", .font), ("theme", .none),
    ])
    func views(key: String, view: WellKnownKey.View) throws {
        #expect(WellKnownKey.view(of: try PreferenceKey(key)) == view)
    }

    @Test("the counter reads its slot through the layers: stored, else default, else 0")
    func counterView() throws {
        let stored = PreferenceSlot(key: WellKnownKey.counter, stored: .init(value: .string("5"), version: Version(8)),
                                    registered: .string("41"), defaultsVersion: Version(2))
        #expect(CounterState(profile: .default, slot: stored) == CounterState(profile: .default, counter: Counter(5), version: Version(8)))
        let registered = PreferenceSlot(key: WellKnownKey.counter, stored: nil, registered: .string("41"), defaultsVersion: Version(2))
        #expect(CounterState(profile: .default, slot: registered).counter == Counter(41))
        let nothing = PreferenceSlot(key: WellKnownKey.counter, stored: nil, registered: nil, defaultsVersion: .initial)
        #expect(CounterState(profile: .default, slot: nothing) == .fresh(.default))
    }
}
