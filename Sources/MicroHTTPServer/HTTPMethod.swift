/// A request method as a value, so that a route names `.post` rather than a string a typo
/// could turn into a method nobody sends.
///
/// A struct with static members rather than an enum: a request may carry any token as its
/// method (RFC 9110 §9.1), and the router answers an unknown one 405 with the methods the path
/// has, which needs the method as sent, not a failed conversion.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method's token, case-sensitive as RFC 9110 §9.1 says (`get` is not `GET`).
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    /// Whether the method is safe (RFC 9110 §9.2.1: GET, HEAD, OPTIONS): a client, a browser's
    /// page of another origin or a crawler may send it without meaning to change anything.
    public var isSafe: Bool { self == .get || self == .head || self == .options }

    public var description: String { rawValue }
}
