/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Order and repetition are kept as received, because some checks need them (two
/// `Content-Length` fields that disagree are a framing error, not a lookup question).
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    public typealias Element = (name: String, value: String)

    private var fields: [Element]

    public init() { fields = [] }

    /// Empty, with room for `capacity` fields (saves regrowing on hot paths).
    public init(reservingCapacity capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of the field `name` (ASCII case-insensitive), or `nil`.
    ///
    /// The lookups read each field's name by index: iterating the fields copied each one, name
    /// and value, a reference count each (several lookups run per request).
    public subscript(name: String) -> String? {
        for index in fields.indices where fields[index].name.equalsIgnoringASCIICase(name) { return fields[index].value }
        return nil
    }

    /// Every value of the field `name`, in the order received.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        for index in fields.indices where fields[index].name.equalsIgnoringASCIICase(name) { return true }
        return false
    }

    /// How many fields are named `name`, without collecting their values (it runs per request).
    public func count(of name: String) -> Int {
        var count = 0
        for index in fields.indices where fields[index].name.equalsIgnoringASCIICase(name) { count += 1 }
        return count
    }

    /// The members of a list-valued field (RFC 9110 §5.6.1: `#element`): every field named
    /// `name`, split at commas, each member trimmed of spaces and tabs. Empty members are kept
    /// only with `keepingEmpty` (a `Content-Length: 5,,5` must not pass for `5`).
    public func listMembers(for name: String, keepingEmpty: Bool = false) -> [Substring] {
        values(for: name).flatMap { value in
            value[...].split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingASCIISpaces() }
                .filter { keepingEmpty || !$0.isEmpty }
        }
    }

    /// Appends a field, keeping any existing field of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` with a single one.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

extension String {
    /// Compares two strings byte by byte, folding only ASCII letters (HTTP field names are ASCII).
    /// Allocation-free, unlike `lowercased()`: it runs for every header lookup.
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let lhs = utf8, rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        // Native strings (every field name here) lend their bytes: a loop over two buffers, where
        // iterating the two views in step cost more than every other check of a GET (perf).
        let compared = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in Self.equalIgnoringASCIICase(left, right) }
        }
        if let compared, let result = compared { return result }
        return zip(lhs, rhs).allSatisfy(Self.sameIgnoringASCIICase)
    }

    private static func equalIgnoringASCIICase(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<left.count where !sameIgnoringASCIICase(left[index], right[index]) { return false }
        return true
    }

    @inline(__always)
    private static func sameIgnoringASCIICase(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
    }
}
