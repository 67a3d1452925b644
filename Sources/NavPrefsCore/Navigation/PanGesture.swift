/// A navigation pan as a client samples it (`UIPanGestureRecognizer` in the navigation
/// controller's view): where it started, how far it moved and how fast, how wide the view is,
/// and which way the interface reads.
///
/// One sample serves both moments XZ looks at: the velocity's direction picks the operation
/// (G-4, when the pan begins) and its speed, with the translation, decides whether it finishes
/// (G-9, when it ends). Send the sample taken at the end of the pan.
public struct PanGesture: Sendable, Hashable, StrictJSONDecodable {
    /// A point or a vector in points (`CGPoint`).
    public struct Point: Sendable, Hashable {
        public var x: Double
        public var y: Double

        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }

        public var json: JSONValue { .object(["x": .number(x), "y": .number(y)]) }

        static func decode(_ value: JSONValue, at path: String) throws(NavigationDecodingError) -> Point {
            var reader = try MemberReader(value, at: path)
            let x = try MemberReader.number(reader.required("x"), at: reader.pointer("x"))
            let y = try MemberReader.number(reader.required("y"), at: reader.pointer("y"))
            try reader.finish()
            return Point(x: x, y: y)
        }
    }

    /// `effectiveUserInterfaceLayoutDirection`: right-to-left mirrors every horizontal rule (G-4, G-6).
    public enum LayoutDirection: String, Sendable, CaseIterable {
        case leftToRight, rightToLeft
    }

    /// Where the touch went down, in the view (`location - translation`); x within `0...width`.
    public let start: Point
    /// How far the touch moved since (`translation(in:)`).
    public let translation: Point
    /// Points per second (`velocity(in:)`).
    public let velocity: Point
    /// The view's width (`bounds.width`, `minX` being 0); above 0.
    public let width: Double
    public let layoutDirection: LayoutDirection

    /// - Throws: ``NavigationDecodingError`` for a width that is not above 0 or a start outside
    ///   the view (the pan could not have begun there).
    public init(start: Point, translation: Point, velocity: Point, width: Double,
                layoutDirection: LayoutDirection = .leftToRight) throws(NavigationDecodingError) {
        // Every number a body holds lies within the 64-bit integer range (openapi.yaml); beyond
        // it a pan is no measurement of a screen.
        let limit = 9_223_372_036_854_775_807.0
        for (name, value) in [("width", width), ("start/x", start.x), ("start/y", start.y), ("translation/x", translation.x),
                              ("translation/y", translation.y), ("velocity/x", velocity.x), ("velocity/y", velocity.y)]
        where !(value.isFinite && abs(value) <= limit) {
            throw NavigationDecodingError(path: "/" + name, problem: .invalidValue("must be a finite number within ±\(Int64.max)"))
        }
        guard width > 0 else {
            throw NavigationDecodingError(path: "/width", problem: .invalidValue("the width is above 0 points"))
        }
        guard start.x >= 0, start.x <= width else {
            throw NavigationDecodingError(path: "/start/x", problem: .invalidValue("a pan starts inside the view: 0...width"))
        }
        self.start = start
        self.translation = translation
        self.velocity = velocity
        self.width = width
        self.layoutDirection = layoutDirection
    }

    /// `{"start": {"x": 5, "y": 300}, "translation": {"x": 120, "y": 4}, "velocity": {"x": 800,
    /// "y": 0}, "width": 390, "layoutDirection": "leftToRight"}`; only `layoutDirection` is
    /// optional (left to right).
    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        let start = try Point.decode(reader.required("start"), at: reader.pointer("start"))
        let translation = try Point.decode(reader.required("translation"), at: reader.pointer("translation"))
        let velocity = try Point.decode(reader.required("velocity"), at: reader.pointer("velocity"))
        let width = try MemberReader.number(reader.required("width"), at: reader.pointer("width"))
        let direction = try reader.choice("layoutDirection", LayoutDirection.self) ?? .leftToRight
        try reader.finish()
        do {
            try self.init(start: start, translation: translation, velocity: velocity, width: width, layoutDirection: direction)
        } catch {
            throw NavigationDecodingError(path: path + error.path, problem: error.problem)
        }
    }

    public var json: JSONValue {
        .object([
            "start": start.json,
            "translation": translation.json,
            "velocity": velocity.json,
            "width": .number(width),
            "layoutDirection": .string(layoutDirection.rawValue),
        ])
    }
}
