/// Preference keys the seeds use, which NavPrefs gives typed views. A value stored under one
/// of them, through any route, must keep its view working.
public enum WellKnownKey {
    /// The seed's counter (seed 000: `UserPreferences.numIndex`, a base-10 integer string), C-8.
    public static let counter = PreferenceKey(wellKnown: "numIndex")
    /// Seed 001's font size (`UserDefaultsManager.fontSizekey`, a Float: slider + 17).
    public static let fontSize = PreferenceKey(wellKnown: "fontSizekey")
    /// Seed 001's slider position (`UserDefaultsManager.sliderValuekey`, the rounded Float).
    public static let sliderValue = PreferenceKey(wellKnown: "sliderValuekey")

    /// The view a key belongs to, which decides the event its changes log.
    public enum View: Sendable, Equatable {
        case counter
        case font
        case none
    }

    public static func view(of key: PreferenceKey) -> View {
        switch key {
        case counter: .counter
        case fontSize, sliderValue: .font
        default: .none
        }
    }

    /// The value to store for `key`, in the form its view reads; the value itself for other keys.
    /// - `numIndex`: an integer, or its canonical base-10 string (`"7"`), stored as the string
    ///   the seed stores (C-5). `"007"`, `"7.0"`, `7.5` and the like are refused, never rewritten.
    /// - `fontSizekey`: a number within the sizes the slider produces, stored as a number.
    /// - `sliderValuekey`: a whole number within the slider range (what the seed stores after
    ///   rounding), stored as a number; use the font settings route to round.
    public static func storedForm(of value: JSONValue, for key: PreferenceKey) throws(WellKnownValueError) -> JSONValue {
        switch key {
        case counter:
            if let integer = value.integralValue { return .string(String(integer)) }
            if case .string(let text) = value, let integer = Int64(text), String(integer) == text { return value }
            throw WellKnownValueError(key: key, expected: "an integer or its base-10 string form, e.g. 7 or \"7\"")
        case fontSize:
            guard let number = value.numericValue, FontSettings.fontSizeRange.contains(number) else {
                throw WellKnownValueError(key: key, expected: "a number from \(Int(FontSettings.fontSizeRange.lowerBound)) to \(Int(FontSettings.fontSizeRange.upperBound))")
            }
            return .number(number)
        case sliderValue:
            guard let number = value.numericValue, number.rounded(.towardZero) == number,
                  FontSettings.sliderRange.contains(number) else {
                throw WellKnownValueError(key: key, expected: "a whole number from \(Int(FontSettings.sliderRange.lowerBound)) to \(Int(FontSettings.sliderRange.upperBound)) (PUT the font settings to round a slider value)")
            }
            return .number(number)
        default:
            return value
        }
    }
}

/// A value that would break a typed view of a well-known key.
public struct WellKnownValueError: Error, Hashable, CustomStringConvertible {
    public let key: PreferenceKey
    public let expected: String

    public var description: String { "'\(key)' must be \(expected)" }
}
