import MicroHTTPServer

extension HTTPRequest {
    /// Query argument `name` as a whole number within `range` (ASCII digits only: no sign, no
    /// spaces); `nil` when the request has none.
    /// - Throws: 400 `invalid-query` naming the argument, its range and what was sent.
    func wholeNumber(_ name: String, in range: ClosedRange<Int64>) throws(APIError) -> Int64? {
        guard let text = queryValue(name) else { return nil }
        guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let number = Int64(text), range.contains(number)
        else {
            throw APIError(.invalidQuery, "'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text.prefix(40))'.")
        }
        return number
    }
}
