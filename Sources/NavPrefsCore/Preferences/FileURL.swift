// `UserDefaults.url(forKey:)` for a stored string, in pure Swift.
//
// corelibs (Sources/Foundation/UserDefaults.swift, `url(forKey:)`) answers
// `URL(fileURLWithPath: NSString(string: value).expandingTildeInPath)`: a *file* URL, never a
// parse of the text as a URL ("https://x" becomes file:///<cwd>/https%3A//x). Its answer depends on
// the process: the current directory (relative paths), the user database (`~`, `~user`) and the
// file system (an existing directory gets a trailing slash). `FileURLEnvironment` carries those.

/// What `url(forKey:)` reads from the process and the machine.
public struct FileURLEnvironment: Sendable {
    /// The process's current directory, absolute, without a trailing slash ("/" for the root).
    public var currentDirectory: String
    /// The home directory for `~` (corelibs: `NSHomeDirectoryForUser(nil)`, the password
    /// database entry of the process's user, not `$HOME`), or for `~name` (`getpwnam`); nil when
    /// there is no such user.
    public var homeDirectory: @Sendable (_ user: String?) -> String?
    /// Whether the absolute `path` names an existing directory, as `lstat` sees it: a symbolic
    /// link to a directory is not one ("~bin/" is file:///bin on Debian, where /bin is a link);
    /// the text stops at a NUL as a C string does.
    public var isDirectory: @Sendable (_ path: String) -> Bool

    public init(
        currentDirectory: String,
        homeDirectory: @escaping @Sendable (_ user: String?) -> String?,
        isDirectory: @escaping @Sendable (_ path: String) -> Bool
    ) {
        self.currentDirectory = currentDirectory
        self.homeDirectory = homeDirectory
        self.isDirectory = isDirectory
    }

    /// A fixed, disk-free environment: current directory "/", `~` and `~root` are "/root", no
    /// other user, and the only directories are "/" and "/root" (any path ending in "/" is one
    /// anyway). A deliberate choice: the service's answers must not depend on its host's disk.
    public static let fixed = FileURLEnvironment(
        currentDirectory: "/",
        homeDirectory: { user in user == nil || user == "root" ? "/root" : nil },
        isDirectory: { $0 == "/" || $0 == "/root" }
    )
}

/// The file URL `url(forKey:)` answers for a stored string, as `absoluteString`.
public enum FileURL {
    /// `URL(fileURLWithPath: NSString(string: text).expandingTildeInPath).absoluteString`.
    public static func absoluteString(forStoredString text: String, in environment: FileURLEnvironment) -> String {
        let expanded = expandingTildeInPath(text, in: environment)
        return fileURLString(forPath: expanded, in: environment)
    }

    // MARK: Stage 1: NSString.expandingTildeInPath (corelibs, NSPathUtilities.swift)

    /// corelibs `NSString.expandingTildeInPath`, which works on Characters (grapheme clusters):
    /// - unchanged unless the first Character is exactly "~" (so "~\u{301}" is not expanded);
    /// - the user name runs from after "~" to the first Character that is exactly "/";
    ///   an empty name means the current user;
    /// - with a home directory, "~name" is replaced by it; without one the text is kept;
    /// - either way one trailing "/" is then removed when the text is longer than one UTF-16 unit
    ///   (`_stringByFixingSlashes(compress: false, stripTrailing: true)`): "~/x/" is "/root/x".
    static func expandingTildeInPath(_ text: String, in environment: FileURLEnvironment) -> String {
        guard text.first == "~" else { return text }
        let afterTilde = text.index(after: text.startIndex)
        let endOfUserName = text.firstIndex(where: { $0 == "/" }) ?? text.endIndex
        let userName = String(text[afterTilde..<endOfUserName])
        guard let home = environment.homeDirectory(userName.isEmpty ? nil : userName) else {
            return strippingOneTrailingSlash(text)
        }
        return strippingOneTrailingSlash(home + text[endOfUserName...])
    }

    /// `String._stringByFixingSlashes(compress: false, stripTrailing: true)`.
    static func strippingOneTrailingSlash(_ text: String) -> String {
        guard text.utf16.count > 1, text.last == "/" else { return text }
        return String(text.dropLast())
    }

    // MARK: Stage 2: URL(fileURLWithPath:) (swift-foundation)

    /// `URL(fileURLWithPath:)` as swift-foundation builds it on Linux, then `absoluteString`:
    /// - "" is ".";
    /// - a path whose first byte is "~" is expanded again, byte-wise this time: the user name runs
    ///   to the first "/" byte; an unknown user leaves the path as it is; no slash is stripped
    ///   (this catches "~/\u{301}a", which stage 1 left alone);
    /// - a path ending in "/" or naming an existing directory is a directory: "/" is appended;
    /// - an absolute path is percent-encoded as it is: "file://" + path, dots and "//" kept;
    /// - a relative path is percent-encoded (":" too in its first segment), resolved against the
    ///   current directory as RFC 3986 does (merge, then remove "." and ".." segments).
    static func fileURLString(forPath rawPath: String, in environment: FileURLEnvironment) -> String {
        var path = rawPath.isEmpty ? "." : rawPath
        if path.utf8.first == UInt8(ascii: "~") { path = byteWiseTildeExpansion(path, in: environment) }
        let isAbsolute = path.utf8.first == UInt8(ascii: "/")
        var base = environment.currentDirectory
        if base.utf8.last != UInt8(ascii: "/") { base += "/" }
        // The file system is asked about the absolute path, as a C string (cut at a NUL: "\0"
        // asks about the current directory itself, a directory).
        let isDirectory = path.utf8.last == UInt8(ascii: "/") || environment.isDirectory(isAbsolute ? path : base + path)
        if isDirectory && path.utf8.last != UInt8(ascii: "/") { path += "/" }
        if isAbsolute {
            return "file://" + percentEncodedPath(path, encodeColonInFirstSegment: false)
        }
        let merged = percentEncodedPath(base, encodeColonInFirstSegment: false)
            + percentEncodedPath(path, encodeColonInFirstSegment: true)
        return "file://" + removingDotSegments(merged)
    }

    /// swift-foundation's `String._expandingTildeInPath` over UTF-8, except that an unknown user
    /// leaves the path unchanged (what this toolchain does).
    static func byteWiseTildeExpansion(_ path: String, in environment: FileURLEnvironment) -> String {
        let bytes = Array(path.utf8)
        let slash = bytes.firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
        let user = slash == 1 ? nil : String(decoding: bytes[1..<slash], as: UTF8.self)
        guard let home = environment.homeDirectory(user) else { return path }
        return home + String(decoding: bytes[slash...], as: UTF8.self)
    }

    /// Percent-encodes UTF-8 bytes outside RFC 3986's path characters: unreserved
    /// (`A-Z a-z 0-9 - . _ ~`), sub-delims (`! $ & ' ( ) * + , ; =`), `:`, `@` and `/`.
    /// "%" is always encoded ("%41" stays literal as "%2541"). A relative reference's first
    /// segment also encodes ":" so that it cannot read as a scheme.
    static func percentEncodedPath(_ path: String, encodeColonInFirstSegment: Bool) -> String {
        var output = ""
        var inFirstSegment = encodeColonInFirstSegment
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") { inFirstSegment = false }
            if isPathCharacter(byte) && !(inFirstSegment && byte == UInt8(ascii: ":")) {
                output.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                output += "%" + hexDigit(byte >> 4) + hexDigit(byte & 0xF)
            }
        }
        return output
    }

    private static func isPathCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~!$&'()*+,;=:@/".utf8.contains(byte)
        }
    }

    private static func hexDigit(_ value: UInt8) -> String {
        String(Unicode.Scalar(value < 10 ? value + 0x30 : value + 0x37))
    }

    /// RFC 3986 section 5.2.4, `remove_dot_segments`, over an absolute path.
    static func removingDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []  // segments, each with its leading "/"
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                _ = output.popLast()
            } else if input == "/.." {
                input = "/"
                _ = output.popLast()
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let searchStart = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[searchStart...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }
}
