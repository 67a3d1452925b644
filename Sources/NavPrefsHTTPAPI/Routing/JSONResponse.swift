import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// JSON responses of versioned resources: `ETag`, and 304 when `If-None-Match` has it already.
enum JSONResponse {
    static func make(_ body: JSONObjectBuilder, version: Version?, request: HTTPRequest? = nil) -> HTTPResponse {
        make(json: body.json, version: version, request: request)
    }

    /// The same for a body that is already JSON text.
    static func make(json: String, version: Version?, request: HTTPRequest? = nil) -> HTTPResponse {
        var headers = HTTPHeaders(reservingCapacity: 6)  // with the ones NavPrefsAPI.finish adds
        if let version {
            headers.add(HeaderName.eTag, ETag.format(version))
            if let request, ETag.noneMatchHits(request.headers, version) {
                return .notModified(headers: headers, representationLength: json.utf8.count + 1)  // the 200's, "\n" included
            }
        }
        headers.add(HeaderName.contentType, "application/json")
        return HTTPResponse(status: 200, headers: headers, bytes: Array((json + "\n").utf8))
    }

    /// The answer to a conditional request or a `HEAD` from the resource's version alone (read
    /// on the calling thread), when that is all it needs: 304 for a matching `If-None-Match`,
    /// the 200's head for `HEAD`; `nil` when the data must be read (or the version could not be
    /// read here).
    static func fromVersion(_ read: StoreRead<Version>, of store: any LoopReading, for request: HTTPRequest) -> Result<HTTPResponse, StoreError>? {
        let isHead = request.method == HTTPMethod.head.rawValue
        guard isHead || request.headers.contains(HeaderName.ifNoneMatch) else { return nil }
        guard case .done(let result) = store.performOnCallingThread(read) else { return nil }
        let version: Version
        switch result {
        case .success(let read): version = read
        case .failure(let error): return .failure(error)
        }
        var headers = HTTPHeaders(reservingCapacity: 6)
        headers.add(HeaderName.eTag, ETag.format(version))
        if ETag.noneMatchHits(request.headers, version) { return .success(.notModified(headers: headers, representationLength: nil)) }
        guard isHead else { return nil }
        headers.add(HeaderName.contentType, "application/json")
        return .success(HTTPResponse(status: 200, headers: headers, body: .omitted(representationLength: nil)))
    }
}
