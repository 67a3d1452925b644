/// The title text attributes seed 002 sets on the bar (`NSFontAttributeName` as a system font
/// size, `NSForegroundColorAttributeName`), also used by the appearance layers. Unset
/// attributes keep the system's.
public struct TextAttributes: Sendable, Hashable, StrictJSONDecodable {
    /// Points of the system font (`UIFont.systemFont(ofSize:)`); above 0, at most
    /// ``NavigationLimits/maxFontSize``.
    public var fontSize: Double?
    public var foregroundColor: BarColor?

    public init(fontSize: Double? = nil, foregroundColor: BarColor? = nil) {
        self.fontSize = fontSize
        self.foregroundColor = foregroundColor
    }

    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        let fontSize = try reader.number("fontSize")
        let color = try reader.decode("foregroundColor", BarColor.decode)
        try reader.finish()
        self.init(fontSize: fontSize, foregroundColor: color)
        try validate(at: path)
    }

    public var json: JSONValue {
        .object(["fontSize": jsonOrNull(fontSize, JSONValue.number), "foregroundColor": jsonOrNull(foregroundColor, \.json)])
    }

    func validate(at path: String) throws(NavigationDecodingError) {
        if let fontSize, !(fontSize > 0 && fontSize <= NavigationLimits.maxFontSize) {
            throw NavigationDecodingError(path: JSONPointer.appending("fontSize", to: path),
                                          problem: .invalidValue("a font size is above 0 and at most \(Int(NavigationLimits.maxFontSize)) points"))
        }
    }
}
