/// The font settings of seed 001: a slider whose value is rounded, and a font size of slider + 17,
/// read back as 17 when nothing usable is stored (semantics F-1..F-5).
public struct FontSettings: Sendable, Hashable {
    /// The size the seed falls back to (`savedFontSize > 0 ? savedFontSize : 17`).
    public static let baseSize: Double = 17

    /// Slider values accepted: ±1000. A font size beyond 1000 points is no longer a font size, and
    /// every whole number in this range (and its sum with 17) is exact in the `Float` the seed
    /// stores (exact up to 2^24), so "rounded, plus 17" means the same here and on the device.
    public static let sliderRange: ClosedRange<Double> = -1000...1000
    /// Font sizes a client may store directly (the sizes the slider range produces).
    public static let fontSizeRange: ClosedRange<Double> = (sliderRange.lowerBound + baseSize)...(sliderRange.upperBound + baseSize)

    /// What `float(forKey: sliderValuekey)` reads: 0 when never set (F-5).
    public let sliderValue: Double
    /// What `float(forKey: fontSizekey)` reads: 0 when never set.
    public let fontSize: Double

    public init(sliderValue: Double, fontSize: Double) {
        self.sliderValue = sliderValue
        self.fontSize = fontSize
    }

    /// The settings as the seed reads them from the two preference values (`nil`: absent).
    public init(reading slider: JSONValue?, fontSize: JSONValue?) {
        self.init(sliderValue: Double(PreferenceGetter.float(slider)), fontSize: Double(PreferenceGetter.float(fontSize)))
    }

    /// F-3/F-4: the stored size if it is above 0, else 17.
    public var effectiveFontSize: Double { fontSize > 0 ? fontSize : Self.baseSize }

    /// F-1/F-2: what a slider change stores: the value rounded half away from zero (2.5 is 3,
    /// -2.5 is -3, like Swift's `round()` in the seed), and that plus 17 as the font size.
    /// - Throws: ``FontSettingsError`` for a value that is not finite or outside ``sliderRange``;
    ///   nothing is stored then.
    public static func settingSlider(to value: Double) throws(FontSettingsError) -> FontSettings {
        guard value.isFinite else { throw .notFinite }
        let rounded = value.rounded(.toNearestOrAwayFromZero)
        guard sliderRange.contains(rounded) else { throw .outOfRange(value) }
        return FontSettings(sliderValue: rounded, fontSize: rounded + baseSize)
    }
}

/// Why a slider value is refused.
public enum FontSettingsError: Error, Hashable, CustomStringConvertible {
    case notFinite
    case outOfRange(Double)

    public var description: String {
        switch self {
        case .notFinite: "the slider value must be a finite number"
        case .outOfRange(let value):
            "the slider value \(value) is outside \(Int(FontSettings.sliderRange.lowerBound))...\(Int(FontSettings.sliderRange.upperBound))"
        }
    }
}
