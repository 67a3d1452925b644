/// An image the client draws (`UIImage(named:)`), named, with what the service needs to know
/// about its pixels: whether it is fully opaque, which decides the bar's default translucency
/// (B-9; UIKit reads the alpha channel, the service takes the client's word).
///
/// An empty name is an empty image: the familiar `shadowImage = UIImage()` that hides the
/// hairline under the bar.
public struct BarImage: Sendable, Hashable, StrictJSONDecodable {
    public var name: String
    /// Every pixel has alpha 1.0.
    public var isOpaque: Bool

    public init(name: String, isOpaque: Bool = false) {
        self.name = name
        self.isOpaque = isOpaque
    }

    /// `{"name": "navBar", "isOpaque": true}`; `isOpaque` defaults to false.
    public init(json: JSONValue, at path: String = "") throws(NavigationDecodingError) {
        var reader = try MemberReader(json, at: path)
        let name = try MemberReader.string(reader.required("name"), at: reader.pointer("name"))
        let isOpaque = try reader.bool("isOpaque") ?? false
        try reader.finish()
        self.init(name: name, isOpaque: isOpaque)
        try validate(at: path)
    }

    public var json: JSONValue { .object(["name": .string(name), "isOpaque": .bool(isOpaque)]) }

    func validate(at path: String) throws(NavigationDecodingError) {
        try Limit.text(name, at: JSONPointer.appending("name", to: path))
    }
}
