/// Text from a file or a database, made safe for an operator's terminal before a command prints
/// it: a profile name or label holding `ESC ] 0 ; … BEL` would otherwise retitle the terminal,
/// `ESC [ 31 m` recolour it, a carriage return overwrite the line before.
enum TerminalText {
    /// `text` with every control character (C0, DEL, C1) written as `\u{1B}`, and `\` as `\\`
    /// (so an escape in the output is never mistaken for one in the input).
    static func escaped(_ text: some StringProtocol) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F:
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            case 0x5C:
                result += "\\\\"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
