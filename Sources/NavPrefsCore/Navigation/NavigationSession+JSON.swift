extension NavigationSession: StrictJSONDecodable {
    /// The session as a store keeps it and reads it back:
    /// `{"screens": [...], "appearance": {...}, "options": {...}, "presented": null}`.
    /// `screens` is required; the others default to a plain, unstyled, unpresented session.
    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        let screensPath = reader.pointer("screens")
        let screens = try NavigationStack.screens(json: reader.required("screens"), at: screensPath)
        let appearance = try reader.decode("appearance", as: BarAppearance.self) ?? .systemDefault
        let options = try reader.decode("options", as: NavigationOptions.self) ?? NavigationOptions()
        let presented = try reader.decode("presented", as: Screen.self)
        try reader.finish()
        let stack: NavigationStack
        do {
            stack = try NavigationStack(screens: screens)
        } catch {
            throw NavigationDecodingError(path: screensPath, problem: .invalidValue(error.description))
        }
        do {
            try self.init(stack: stack, appearance: appearance, options: options, presented: presented)
        } catch {
            throw NavigationDecodingError(path: reader.pointer("presented"), problem: .invalidValue(error.description))
        }
    }

    public var json: JSONValue {
        .object([
            "screens": .array(stack.screens.map(\.json)),
            "appearance": appearance.json,
            "options": options.json,
            "presented": jsonOrNull(presented, \.json),
        ])
    }
}
