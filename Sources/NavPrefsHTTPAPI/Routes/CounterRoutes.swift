import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// The seed's counter (`numIndex`), semantics C-1..C-8:
/// `GET`/`PUT /v1/profiles/{profile}/counter` and `POST .../counter/increment|decrement|reset`.
struct CounterRoutes: RouteCollection {
    let store: any Store
    /// Answers hot reads from memory when the store keeps counters there (SQLite).
    let cache: (any CounterCacheReading)?
    /// The bytes of each counter as last read.
    let representations = CounterRepresentations()

    static let resource = "/v1/profiles/{profile}/counter"

    var routes: [Route] {
        [
            Route(.get, Self.resource, .profile, .reads, read),
            // Who changed the counter, and how (``KeyHistory``).
            Route(.get, Self.resource + "/history", .profile, .reads) { [store] request throws(APIError) in
                try KeyHistory.read(request, of: HistorySubject.counter, store: store)
            },
            Route(.put, Self.resource, .profile, .writes) { request throws(APIError) in
                let body = try JSONBody.object(of: request.http, allowed: ["value"], required: true) ?? [:]
                return try write(.set(try body.requireInt64("value")), request)
            },
            Route(.post, Self.resource + "/increment", .profile, .writes) { request throws(APIError) in
                try write(.increment(try step(of: request)), request)
            },
            Route(.post, Self.resource + "/decrement", .profile, .writes) { request throws(APIError) in
                try write(.decrement(try step(of: request)), request)
            },
            Route(.post, Self.resource + "/reset", .profile, .writes) { request throws(APIError) in
                _ = try JSONBody.object(of: request.http, allowed: [], required: false)
                return try write(.reset, request)
            },
        ]
    }

    /// Answers from the store's memory when it can (no storage I/O), else reads the counter
    /// (filling the cache, where there is one) through ``APIResult/reading(_:from:_:)``.
    private func read(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        if let state = cache?.cachedCounter(of: profile) {
            return .immediate(Self.read(representations.representation(of: state), request: request.http))
        }
        let representations = self.representations
        return .reading(cache?.counterRead(of: profile) ?? .counter(of: profile), from: store) { state in
            Self.read(representations.representation(of: state), request: request.http)
        }
    }

    /// The answer to a read: the representation's bytes with its ETag, or 304 when
    /// If-None-Match already has that version.
    private static func read(_ representation: CounterRepresentations.Representation, request: HTTPRequest) -> HTTPResponse {
        var headers = HTTPHeaders(reservingCapacity: 6)  // with the ones NavPrefsAPI.finish adds
        headers.add(HeaderName.eTag, representation.etag)
        if ETag.noneMatchHits(request.headers, representation.version) {
            return .notModified(headers: headers, representationLength: representation.body.count)
        }
        headers.add(HeaderName.contentType, "application/json")
        return HTTPResponse(status: 200, headers: headers, bytes: representation.body)
    }

    private func write(_ operation: CounterOperation, _ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        // If-Match, or If-None-Match (`*`: only while the counter's profile does not exist yet).
        let precondition = ETag.writePrecondition(from: request.http.headers)
        return try IdempotentWrites.run(request, profile: profile, store: store, .counter(operation, of: profile, if: precondition)) { change in
            Self.response(for: change.state, eventID: change.eventID)
        }
    }

    /// `{"by": n}`, optional; n is a whole number of at least 1.
    private func step(of request: APIRequest) throws(APIError) -> CounterStep {
        guard let body = try JSONBody.object(of: request.http, allowed: ["by"], required: false), let value = body["by"] else { return .one }
        guard let amount = value.integralValue, let step = try? CounterStep(amount) else {
            throw APIError(.invalidBody, "'by' must be a whole number from 1 to \(Int64.max), not \(value.typeName) \(value.jsonText.prefix(40)).")
        }
        return step
    }

    /// `{"profile":"p","value":5,"stringValue":"5","version":7}` (+ `eventId` after a write),
    /// with the version as ETag; 304 when If-None-Match already has it.
    static func response(for state: CounterState, request: HTTPRequest? = nil, eventID: Int64? = nil) -> HTTPResponse {
        var headers = HTTPHeaders(reservingCapacity: 6)  // with the ones NavPrefsAPI.finish adds
        headers.add(HeaderName.eTag, ETag.format(state.version))
        // Fixed shape, written as bytes in one buffer: every write answers this. Profile names
        // need no escaping.
        let value = String(state.counter.value)
        var body: [UInt8] = []
        body.reserveCapacity(112 + state.profile.rawValue.utf8.count)
        body.append(contentsOf: #"{"profile":""#.utf8)
        body.append(contentsOf: state.profile.rawValue.utf8)
        body.append(contentsOf: #"","value":"#.utf8)
        body.append(contentsOf: value.utf8)
        body.append(contentsOf: #","stringValue":""#.utf8)
        body.append(contentsOf: value.utf8)
        body.append(contentsOf: #"","version":"#.utf8)
        body.append(contentsOf: String(state.version.rawValue).utf8)
        if let eventID {
            body.append(contentsOf: #","eventId":"#.utf8)
            body.append(contentsOf: String(eventID).utf8)
        }
        body.append(contentsOf: "}\n".utf8)
        if let request, ETag.noneMatchHits(request.headers, state.version) {
            return .notModified(headers: headers, representationLength: body.count)
        }
        headers.add(HeaderName.contentType, "application/json")
        return HTTPResponse(status: 200, headers: headers, bytes: body)
    }
}
