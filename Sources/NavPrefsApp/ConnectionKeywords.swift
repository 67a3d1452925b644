import Foundation

/// libpq's keyword connection strings (`host=a,b port=5432 password='x y'`), only as far as
/// logging them needs: the value of every secret parameter (``secrets``) is replaced by `***`, whatever its quoting, so
/// that a secret given on the command line never reaches a log line or `--help`.
/// Related libpq documentation: <https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-KEYWORD-VALUE>
enum ConnectionKeywords {
    /// libpq's parameters whose value is a secret: the password, and the passphrase of the
    /// client's TLS key. (Paths such as `sslkey` or `passfile` name a file, not its content.)
    static let secrets: Set<String> = ["password", "sslpassword"]

    /// Whether `name`, as written (any case; percent-encoded in a URL), names a secret parameter.
    static func isSecret(_ name: some StringProtocol) -> Bool {
        secrets.contains((String(name).removingPercentEncoding ?? String(name)).trimmingCharacters(in: .whitespaces).lowercased())
    }

    static func redacted(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while !rest.isEmpty {
            let spaces = rest.prefix { $0 == " " || $0 == "\t" }
            result += spaces
            rest = rest.dropFirst(spaces.count)
            guard let equals = rest.firstIndex(of: "=") else {
                result += rest
                break
            }
            let keyword = rest[..<equals]
            rest = rest[rest.index(after: equals)...]
            let spacesAfter = rest.prefix { $0 == " " }
            rest = rest.dropFirst(spacesAfter.count)
            let value = Self.value(at: rest)
            rest = rest.dropFirst(value.count)
            let hidden = isSecret(keyword)
            result += keyword + "=" + spacesAfter + (hidden ? "***" : value)
        }
        return result
    }

    /// The value at the start of `text` as written: single-quoted (backslash escapes `'` and
    /// `\\`) up to its closing quote, otherwise up to the next space.
    private static func value(at text: Substring) -> Substring {
        guard text.first == "'" else { return text.prefix { $0 != " " && $0 != "\t" } }
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            if text[index] == "\\" {
                index = text.index(after: index)
                if index < text.endIndex { index = text.index(after: index) }
                continue
            }
            if text[index] == "'" { return text[...index] }
            index = text.index(after: index)
        }
        return text
    }
}

extension Substring {
    /// Without leading and trailing spaces.
    var trimmingSpaces: Substring {
        let start = drop { $0 == " " }
        return start.dropLast(start.reversed().prefix { $0 == " " }.count)
    }
}
