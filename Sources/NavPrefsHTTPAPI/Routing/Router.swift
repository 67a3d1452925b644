/// Maps a method and path to a route, or says why none matches (404, or 405 with `Allow`).
///
/// Templates are paths whose `{name}` segments match any non-empty segment. There is no
/// precedence to learn: two templates of the same shape with different literals never overlap.
struct Router: Sendable {
    enum Match {
        case found(Route, parameters: [String])
        /// The path names a resource, the method is not one it supports.
        case methodNotAllowed(template: String, allowed: [String])
        case notFound
    }

    private enum Segment: Equatable {
        case literal(Substring)
        case parameter
    }

    private struct Resource {
        let template: String
        let segments: [Segment]
        var routes: [String: Route]
    }

    private var resources: [Resource] = []

    init(_ routes: [Route]) {
        for route in routes {
            if let index = resources.firstIndex(where: { $0.template == route.template }) {
                resources[index].routes[route.method] = route
            } else {
                let segments = route.template.split(separator: "/").map { segment -> Segment in
                    segment.hasPrefix("{") && segment.hasSuffix("}") ? .parameter : .literal(segment)
                }
                resources.append(Resource(template: route.template, segments: segments, routes: [route.method: route]))
            }
        }
    }

    /// Every template with its methods (HEAD is implied by GET), for the contract test.
    var table: [(template: String, methods: [String])] {
        resources.map { ($0.template, $0.routes.keys.sorted()) }
    }

    func match(method: String, path: String) -> Match {
        guard path.first == "/" else { return .notFound }
        let pieces = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for resource in resources where resource.segments.count == pieces.count {
            var parameters: [String] = []
            var matches = true
            for (segment, piece) in zip(resource.segments, pieces) {
                switch segment {
                case .literal(let literal):
                    matches = literal == piece
                case .parameter:
                    matches = !piece.isEmpty
                    if matches { parameters.append(String(piece)) }
                }
                if !matches { break }
            }
            guard matches else { continue }
            let effectiveMethod = method == "HEAD" ? "GET" : method
            if let route = resource.routes[effectiveMethod] {
                return .found(route, parameters: parameters)
            }
            var allowed = Array(resource.routes.keys)
            if allowed.contains("GET") { allowed.append("HEAD") }
            return .methodNotAllowed(template: resource.template, allowed: allowed.sorted())
        }
        return .notFound
    }
}

/// One operation: a method on a path template, and its handler.
struct Route: Sendable {
    let method: String
    let template: String
    let handler: @Sendable (APIRequest) throws(APIError) -> APIResult

    init(_ method: String, _ template: String, _ handler: @escaping @Sendable (APIRequest) throws(APIError) -> APIResult) {
        self.method = method
        self.template = template
        self.handler = handler
    }

    /// The names of the template's parameters, in order.
    var parameterNames: [String] {
        template.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
    }
}
