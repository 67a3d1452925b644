import MicroHTTPServer

/// Maps a method and path to a route, or says why none matches (404, or 405 with `Allow`).
///
/// Templates are paths whose `{name}` segments match any non-empty segment. There is no
/// precedence to learn: two templates of the same shape with different literals never overlap.
/// Matching works on the path as sent (still percent-encoded), split at `/`, so a parameter can
/// hold an encoded `/` (`keys/a%2Fb`); each parameter is then percent-decoded on its own.
/// Matching compares bytes and allocates only the parameter values of the route found: it runs
/// for every request.
struct Router: Sendable {
    enum Match {
        case found(Route, parameters: [String])
        /// The path names a resource, the method is not one it supports.
        case methodNotAllowed(template: String, allowed: [String])
        case notFound
        /// A parameter's percent-encoding is broken or decodes to something that is not UTF-8.
        case malformedParameter(template: String)
    }

    /// A template's segment. A literal names its bytes in the resource's ``Resource/literals``
    /// instead of holding an array of its own: matching reads segments for every request, and
    /// an array in the payload cost a reference count per segment read.
    private enum Segment: Equatable {
        case literal(Range<Int>)
        case parameter
    }

    private struct Resource {
        let template: String
        let segments: [Segment]
        /// The bytes of every literal segment, one after another.
        let literals: [UInt8]
        var routes: [HTTPMethod: Route]
    }

    private var resources: [Resource] = []

    /// The routes of every collection, in the order listed (which matters only to the order of
    /// ``table``: templates never overlap).
    init(_ collections: [any RouteCollection]) {
        for route in collections.flatMap(\.routes) {
            if let index = resources.firstIndex(where: { $0.template == route.template }) {
                resources[index].routes[route.method] = route
            } else {
                var literals: [UInt8] = []
                let segments = route.template.split(separator: "/").map { segment -> Segment in
                    if segment.hasPrefix("{") && segment.hasSuffix("}") { return .parameter }
                    let start = literals.count
                    literals.append(contentsOf: segment.utf8)
                    return .literal(start..<literals.count)
                }
                resources.append(Resource(template: route.template, segments: segments, literals: literals,
                                          routes: [route.method: route]))
            }
        }
    }

    /// Every route as declared, for the tests that hold declarations to what routes do.
    var routes: [Route] { resources.flatMap { $0.routes.values } }

    /// Every template with its methods (HEAD is implied by GET), for the contract test.
    var table: [(template: String, methods: [String])] {
        resources.map { ($0.template, $0.routes.keys.map(\.rawValue).sorted()) }
    }

    /// - Parameter path: the path as sent, percent-encoded (``HTTPRequest/rawPath``).
    func match(method: String, path: String) -> Match {
        let bytes = path.utf8Span.span
        guard bytes.count > 0, bytes[0] == UInt8(ascii: "/") else { return .notFound }
        // `/` has no segments (the loop below would see one empty segment): the template `/`.
        if bytes.count == 1 {
            guard let root = resources.first(where: { $0.segments.isEmpty }) else { return .notFound }
            return found(root, method: method, parameters: [])
        }
        // The path's segments as byte ranges, on the stack (at most 16; no template is deeper).
        var ranges = InlineArray<16, Range<Int>>(repeating: 0..<0)
        var count = 0
        var start = 1
        for index in 1...bytes.count {
            guard index == bytes.count || bytes[index] == UInt8(ascii: "/") else { continue }
            guard count < 16 else { return .notFound }
            ranges[count] = start..<index
            count += 1
            start = index + 1
        }
        // By index: a `for resource in resources` copied each resource (a reference count per field).
        for candidate in resources.indices where resources[candidate].segments.count == count {
            guard matches(resources[candidate], bytes, ranges) else { continue }
            let resource = resources[candidate]
            var parameters: [String] = []
            for index in resource.segments.indices where resource.segments[index] == .parameter {
                let range = utf8Range(ranges[index], in: path)
                // Without a `%` the segment is the path's own text, already UTF-8 (split at an
                // ASCII `/`): copied, not validated again (validation was 1.3 % of a GET's CPU).
                guard path.utf8[range].contains(UInt8(ascii: "%")) else {
                    parameters.append(String(path[range]))
                    continue
                }
                guard let value = PercentDecoding.decode(path.utf8[range]) else {
                    return .malformedParameter(template: resource.template)
                }
                parameters.append(value)
            }
            return found(resource, method: method, parameters: parameters)
        }
        return .notFound
    }

    /// Whether each of the segments' byte ranges holds what the template's segment asks for
    /// (`segments.count` ranges: the caller matched the counts).
    private func matches(_ resource: borrowing Resource, _ bytes: Span<UInt8>, _ ranges: borrowing InlineArray<16, Range<Int>>) -> Bool {
        for index in resource.segments.indices {
            let range = ranges[index]
            switch resource.segments[index] {
            case .parameter:
                if range.isEmpty { return false }
            case .literal(let literal):
                guard literal.count == range.count else { return false }
                for offset in 0..<literal.count where resource.literals[literal.lowerBound + offset] != bytes[range.lowerBound + offset] {
                    return false
                }
            }
        }
        return true
    }

    /// The `String.Index` range of byte offsets `range` (a native string's UTF-8 index is its offset).
    private func utf8Range(_ range: Range<Int>, in path: String) -> Range<String.Index> {
        let utf8 = path.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        return lower..<utf8.index(lower, offsetBy: range.count)
    }

    private func found(_ resource: Resource, method: String, parameters: [String]) -> Match {
        let method = HTTPMethod(rawValue: method)
        if let route = resource.routes[method == .head ? .get : method] {
            return .found(route, parameters: parameters)
        }
        var allowed = resource.routes.keys.map(\.rawValue)
        if resource.routes[.get] != nil { allowed.append(HTTPMethod.head.rawValue) }
        return .methodNotAllowed(template: resource.template, allowed: allowed.sorted())
    }
}
