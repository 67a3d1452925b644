import MicroHTTPServer
public import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// An error answered to the client as `application/problem+json`.
public struct APIError: Error, Sendable {
    public let type: ProblemType
    /// What went wrong in this occurrence, in one sentence; never internal details.
    public let detail: String
    /// Extension members (RFC 9457 §3.2), e.g. the current value of a counter.
    public var extensions: JSONObject
    /// Headers the status requires (`Allow` on 405, `Retry-After` on 503, `ETag` on 412).
    public var headers: [(String, String)]
    /// What the server log gets and the client does not (the cause of a 5xx).
    var logDetail: String?
    /// The kind of store failure behind this answer, for `navprefs_store_errors_total`.
    var storeErrorKind: String?

    public init(_ type: ProblemType, _ detail: String, extensions: JSONObject = [:], headers: [(String, String)] = []) {
        self.type = type
        self.detail = detail
        self.extensions = extensions
        self.headers = headers
    }
}

extension APIError {
    /// The answer for a store error. Unexpected errors keep their details out of the response
    /// (the caller logs them with the request id). `headers`, the request's, let a 412 name the
    /// condition that failed.
    init(_ error: StoreError, conditionalOn headers: HTTPHeaders? = nil) {
        switch error {
        case .profileNotFound(let profile):
            self.init(.profileNotFound, "Profile '\(profile)' has never been written to.")
        case .preconditionFailed(let current?):
            let detail = ETag.failedCondition(in: headers) == HeaderName.ifNoneMatch
                ? "If-None-Match: the resource exists, at version \(ETag.format(current)), which the condition excludes."
                : "If-Match does not match the current version \(ETag.format(current))."
            self.init(.preconditionFailed, detail,
                      extensions: ["currentVersion": .integer(current.rawValue)], headers: [(HeaderName.eTag, ETag.format(current))])
        case .preconditionFailed(nil):
            self.init(.preconditionFailed, "\(ETag.failedCondition(in: headers)) requires an existing resource, and this one does not exist.")
        case .counter(.outOfRange(let current, let operation)):
            self.init(.counterOutOfRange,
                      "\(operation.name) from \(current) would leave the range \(Int64.min)...\(Int64.max); nothing changed.",
                      extensions: ["currentValue": .integer(current), "operation": .string(operation.name)])
        case .counter(.invalidStep(let amount)):
            self.init(.invalidBody, "'by' must be at least 1, not \(amount).")
        case .invalidValue(let error):
            self.init(.invalidValue, "\(error.description.prefix(1).uppercased())\(error.description.dropFirst()).",
                      extensions: ["key": .string(error.key.rawValue)])
        case .valueTooLarge(let key, let bytes, let limit):
            self.init(.valueTooLarge, "The value of '\(key.rawValue.prefix(80))' would take \(bytes) bytes as JSON after the merge; the limit is \(limit).",
                      extensions: ["limit": .integer(Int64(limit)), "key": .string(key.rawValue)])
        case .tooManyPreferences(let limit):
            self.init(.tooManyPreferences, "The profile already stores \(limit) keys; remove some first.",
                      extensions: ["limit": .integer(Int64(limit))])
        case .sessionNotFound(let id):
            self.init(.sessionNotFound, "This profile has no navigation session '\(id)'.")
        case .quotaExceeded(let quota, let usage):
            self.init(.quotaExceeded, "This write would make the profile hold \(usage) bytes, over its quota of \(quota) bytes (--profile-quota-bytes); remove values or sessions first.",
                      extensions: ["quota": .integer(Int64(quota)), "usage": .integer(Int64(usage))])
        case .tooManySessions(let limit):
            self.init(.tooManySessions, "The profile already has \(limit) navigation sessions; delete some first.",
                      extensions: ["limit": .integer(Int64(limit))])
        case .navigation(let error):
            self.init(error)
        case .unavailable:
            self.init(.storageUnavailable, "The store cannot serve this request now; retry shortly.",
                      headers: [(HeaderName.retryAfter, "1")])
            logDetail = error.description
            storeErrorKind = "unavailable"
        case .closed:
            self.init(.shuttingDown, "The server is shutting down; retry on another instance.", headers: [(HeaderName.retryAfter, "1")])
            storeErrorKind = "closed"
        case .corrupted:
            // Damaged data is no bug of this request: 503, and the instance leaves service
            // (`/readyz`) until the store is restored from a backup.
            self.init(.storageDamaged, "The store's data is damaged; this instance stays out of service until an operator restores it from a backup.")
            logDetail = error.description
            storeErrorKind = "corrupted"
        case .internal:
            self.init(.internalError, "The server failed to handle this request.")
            logDetail = error.description
            storeErrorKind = "internal"
        }
    }

    /// The answer for a request the transport refused before routing (every refusal of
    /// MicroHTTPServer, where the transport lets a body be sent).
    init(_ rejection: HTTPRejection) {
        switch rejection {
        case .payloadTooLarge(let limit):
            self.init(.payloadTooLarge, "Request bodies here are limited to \(limit) bytes.", extensions: ["limit": .integer(Int64(limit))])
        case .invalidContentLength:
            self.init(.badFraming, "Content-Length must be one decimal number, stated once.")
        case .contentLengthWithTransferEncoding:
            self.init(.badFraming, "A request must not carry both Content-Length and Transfer-Encoding.")
        case .malformedHeaderSection:
            self.init(.badFraming, "The header section is malformed (a folded line, space before a colon, or a control character); RFC 9112 §5.")
        case .invalidRequestTarget:
            self.init(.malformedPath, "The request target holds %00, which no path or argument here may contain.")
        case .unsupportedTransferEncoding:
            self.init(.unsupportedTransferCoding, "The only transfer coding accepted is chunked.")
        case .requestTimeout:
            self.init(.requestTimeout, "The request body did not arrive in time.")
        case .uriTooLong(let limit):
            self.init(.uriTooLong, "Request targets are limited to \(limit) bytes.", extensions: ["limit": .integer(Int64(limit))])
        case .tooManyQueryArguments(let limit):
            self.init(.uriTooLong, "A request may carry at most \(limit) query arguments.", extensions: ["limit": .integer(Int64(limit))])
        case .headersTooLarge(let limit):
            self.init(.headersTooLarge, "The request line and header fields are limited to \(limit) bytes.",
                      extensions: ["limit": .integer(Int64(limit))])
        case .bodyBufferFull:
            self.init(.serverBusy, "The server holds as many request bodies as it may; retry shortly.", headers: [(HeaderName.retryAfter, "1")])
        case .answerBufferFull:
            self.init(.serverBusy, "The server holds as many large answers, unread by their clients, as it may; retry shortly.",
                      headers: [(HeaderName.retryAfter, "1")])
        case .shuttingDown:
            self.init(.shuttingDown, "The server is shutting down; retry on another instance.", headers: [(HeaderName.retryAfter, "1")])
        case .invalidHost:
            self.init(.invalidHost, "A request carries exactly one Host field (HTTP/1.0 may carry none), naming a host and optionally a port; RFC 9112 §3.2.")
        case .malformedChunkedBody:
            self.init(.badFraming, "The chunked body is malformed (a chunk size that is not hexadecimal, or a missing line end); RFC 9112 §7.1.")
        case .chunkLineTooLong(let limit):
            self.init(.badFraming, "A chunk's size line, with its extensions, is limited to about \(limit) bytes; RFC 9112 §7.1.1.",
                      extensions: ["limit": .integer(Int64(limit))])
        case .httpVersionNotSupported:
            self.init(.httpVersionNotSupported, "This server speaks HTTP/1.0 and HTTP/1.1.")
        }
    }

    /// The response: RFC 9457 members `type`, `title`, `status`, `detail`, `instance`, then extensions.
    func response(instance: String) -> HTTPResponse {
        var body = JSONObjectBuilder()
        body.add("type", type.uri)
        body.add("title", type.title)
        body.add("status", type.status)
        body.add("detail", detail)
        body.add("instance", instance)
        for member in extensions { body.add(member.key, member.value) }
        var responseHeaders = HTTPHeaders()
        responseHeaders.add(HeaderName.contentType, "application/problem+json")
        for (name, value) in headers { responseHeaders.add(name, value) }
        return HTTPResponse(status: type.status, headers: responseHeaders, bytes: Array((body.json + "\n").utf8))
    }
}

extension APIError {
    /// 422 `nested-too-deeply`: `what` (a value, a body) nests beyond ``JSONDepth/maxValueDepth``.
    static func nestedTooDeeply(_ what: String, key: PreferenceKey? = nil) -> APIError {
        var extensions: JSONObject = ["limit": .integer(Int64(JSONDepth.maxValueDepth))]
        if let key { extensions["key"] = .string(key.rawValue) }
        return APIError(.nestedTooDeeply, "\(what); values may nest at most \(JSONDepth.maxValueDepth) levels (arrays and objects).",
                        extensions: extensions)
    }

    /// The answer for a body that is not JSON: 400 `malformed-json`, but 422 `nested-too-deeply`
    /// when it only nests deeper than the parser goes (about 2,048 levels, far beyond what a
    /// value may).
    init(unparsableBody error: JSONParseError) {
        if let limit = error.exceededMemberLimit {
            self.init(.invalidBody, "The body has an object of more than \(limit) members; no value this service stores has that many.",
                      extensions: ["limit": .integer(Int64(limit))])
        } else if error.message.contains("maximum parsing depth") {
            self = .nestedTooDeeply("The body nests deeper than the parser reads (\(error))")
        } else {
            self.init(.malformedJSON, "The body is not valid JSON: \(error).")
        }
    }
}
