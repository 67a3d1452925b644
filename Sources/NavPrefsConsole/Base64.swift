/// Decoding of the base64 the asset embedder writes (RFC 4648, with padding), without Foundation.
enum Base64 {
    /// The 6-bit value of each ASCII byte; 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        return table
    }()

    /// The bytes `text` encodes. Characters outside the alphabet (padding, line breaks) are
    /// skipped and a trailing partial group is dropped: input comes from our own build, and a
    /// damaged file must not stop the server.
    static func decode(_ text: some Collection<UInt8>, expectedSize: Int = 0) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(max(expectedSize, text.count / 4 * 3))
        var group: UInt32 = 0
        var count = 0
        for byte in text {
            let value = values[Int(byte)]
            guard value != 0xFF else { continue }
            group = group << 6 | UInt32(value)
            count += 1
            if count == 4 {
                output.append(UInt8(truncatingIfNeeded: group >> 16))
                output.append(UInt8(truncatingIfNeeded: group >> 8))
                output.append(UInt8(truncatingIfNeeded: group))
                group = 0
                count = 0
            }
        }
        // The last group: 2 characters carry one byte, 3 carry two.
        if count == 2 {
            output.append(UInt8(truncatingIfNeeded: group >> 4))
        } else if count == 3 {
            output.append(UInt8(truncatingIfNeeded: group >> 10))
            output.append(UInt8(truncatingIfNeeded: group >> 2))
        }
        return output
    }
}
