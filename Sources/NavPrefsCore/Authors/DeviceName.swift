/// The name a client gives the device it writes from (`NavPrefs-Device: kitchen-ipad`), recorded
/// with each change it makes, so that "who changed my font?" has an answer a person recognises.
///
/// On the wire the value is ASCII, as header fields are meant to be: visible characters and
/// spaces, with any other character percent-encoded as UTF-8 (`Ana%E2%80%99s iPhone` is
/// "Ana’s iPhone"), and `%` itself as `%25`. The name it decodes to is 1 to ``maxLength``
/// characters (Unicode scalars, as every length of the service counts) of valid UTF-8 with no
/// control character: it is shown in the console, in terminals and in logs. Raw bytes outside
/// ASCII are refused rather than guessed at (a field's bytes have no declared charset: Latin-1
/// and UTF-8 would read them differently). An empty value names no device.
public struct DeviceName: Sendable, Hashable, CustomStringConvertible {
    /// The longest name, in characters.
    public static let maxLength = 64

    public let rawValue: String

    public var description: String { rawValue }

    /// The name a header field value carries; `nil` for an empty value (no name).
    /// - Throws: ``DeviceNameError`` for anything else that is not one.
    public static func parse(field value: String) throws(DeviceNameError) -> DeviceName? {
        guard !value.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count)
        var encoded = value.utf8.makeIterator()
        while let byte = encoded.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = encoded.next().flatMap(hexValue), let low = encoded.next().flatMap(hexValue) else {
                    throw .brokenEscape
                }
                bytes.append(high << 4 | low)
            case 0x20...0x7E:
                bytes.append(byte)
            case 0..<0x20, 0x7F:
                throw .controlCharacter
            default:
                throw .notASCII
            }
        }
        guard let name = String(validating: bytes, as: UTF8.self) else { throw .notUTF8 }
        return try DeviceName(name)
    }

    /// A name as it reads (already decoded).
    /// - Throws: ``DeviceNameError`` for an empty or too long name, or one with a control character.
    public init(_ name: String) throws(DeviceNameError) {
        let count = name.unicodeScalars.count
        guard count > 0 else { throw .empty }
        guard count <= Self.maxLength else { throw .tooLong(count) }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { throw .controlCharacter }
        rawValue = name
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Why a value is not a ``DeviceName``.
public enum DeviceNameError: Error, Hashable, CustomStringConvertible {
    case empty
    case tooLong(Int)
    case controlCharacter
    case notASCII
    case brokenEscape
    case notUTF8

    public var description: String {
        switch self {
        case .empty: "a device name cannot be empty"
        case .tooLong(let count): "a device name has at most \(DeviceName.maxLength) characters, not \(count)"
        case .controlCharacter: "a device name holds no control characters (line breaks, tabs, escapes)"
        case .notASCII: "send characters outside ASCII percent-encoded as UTF-8 (’ as %E2%80%99)"
        case .brokenEscape: "'%' starts an escape of two hexadecimal digits (a '%' itself is %25)"
        case .notUTF8: "its percent-escapes do not decode to UTF-8"
        }
    }
}
