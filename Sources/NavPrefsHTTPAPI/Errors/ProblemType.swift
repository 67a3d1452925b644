/// Every kind of error NavPrefs answers, each with a stable `type` URI (RFC 9457), title and
/// status. Clients may branch on `type`; titles never change for a type.
public enum ProblemType: String, Sendable, CaseIterable {
    case notFound = "not-found"
    case methodNotAllowed = "method-not-allowed"
    case profileNotFound = "profile-not-found"
    case invalidProfileName = "invalid-profile-name"
    case malformedJSON = "malformed-json"
    case invalidBody = "invalid-body"
    case unsupportedMediaType = "unsupported-media-type"
    case payloadTooLarge = "payload-too-large"
    case badFraming = "bad-request-framing"
    case preconditionFailed = "precondition-failed"
    case counterOutOfRange = "counter-out-of-range"
    case preferenceNotFound = "preference-not-found"
    case invalidPreferenceKey = "invalid-preference-key"
    case invalidValue = "invalid-value"
    case valueTooLarge = "value-too-large"
    case nestedTooDeeply = "nested-too-deeply"
    case repeatedHeaderField = "repeated-header-field"
    case tooManyPreferences = "too-many-preferences"
    case invalidQuery = "invalid-query"
    case sessionNotFound = "session-not-found"
    case screenNotFound = "screen-not-found"
    case tooManySessions = "too-many-sessions"
    case invalidNavigation = "invalid-navigation"
    case screenAlreadyOnStack = "screen-already-on-stack"
    case screenNotOnStack = "screen-not-on-stack"
    case duplicateScreens = "duplicate-screens"
    case stackFull = "stack-full"
    case screenIsPresented = "screen-is-presented"
    case screenOnStack = "screen-on-stack"
    case alreadyPresenting = "already-presenting"
    case tooManySubscribers = "too-many-subscribers"
    case tooManyStreamsFromClient = "too-many-streams-from-client"
    case storageUnavailable = "storage-unavailable"
    case storageDamaged = "storage-damaged"
    case shuttingDown = "shutting-down"
    case internalError = "internal-error"
    case unauthorized = "unauthorized"
    case forbidden = "forbidden"
    case tokenNotFound = "token-not-found"
    case malformedPath = "malformed-path"
    case requestTimeout = "request-timeout"
    case uriTooLong = "uri-too-long"
    case headersTooLarge = "request-headers-too-large"
    case unsupportedTransferCoding = "unsupported-transfer-coding"
    case serverBusy = "server-busy"
    case hostNotAllowed = "host-not-allowed"
    case foreignOrigin = "foreign-origin"
    case invalidIdempotencyKey = "invalid-idempotency-key"
    case invalidDeviceName = "invalid-device-name"
    case idempotencyKeyReused = "idempotency-key-reused"
    case invalidHost = "invalid-host"
    case invalidOrigin = "invalid-origin"
    case quotaExceeded = "quota-exceeded"
    case httpVersionNotSupported = "http-version-not-supported"

    /// The `type` member: a URN, stable and not meant to be dereferenced.
    public var uri: String { "urn:navprefs:problem:" + rawValue }

    public var status: Int {
        switch self {
        case .notFound, .profileNotFound, .preferenceNotFound, .sessionNotFound, .screenNotFound, .tokenNotFound: 404
        case .unauthorized: 401
        case .forbidden: 403
        case .invalidNavigation, .duplicateScreens: 422
        case .tooManySessions, .screenAlreadyOnStack, .screenNotOnStack, .stackFull, .screenIsPresented, .screenOnStack,
             .alreadyPresenting: 409
        case .methodNotAllowed: 405
        case .invalidProfileName, .malformedJSON, .invalidBody, .badFraming, .invalidPreferenceKey, .invalidQuery, .malformedPath,
             .repeatedHeaderField: 400
        case .requestTimeout: 408
        case .uriTooLong: 414
        case .headersTooLarge: 431
        case .unsupportedTransferCoding: 501
        case .serverBusy: 503
        case .hostNotAllowed: 421
        case .invalidHost, .invalidOrigin: 400
        case .quotaExceeded: 409
        case .httpVersionNotSupported: 505
        case .foreignOrigin: 403
        case .invalidIdempotencyKey, .invalidDeviceName: 400
        case .idempotencyKeyReused: 422
        case .invalidValue, .valueTooLarge, .nestedTooDeeply: 422
        case .tooManyPreferences: 409
        case .unsupportedMediaType: 415
        case .payloadTooLarge: 413
        case .preconditionFailed: 412
        case .counterOutOfRange: 409
        case .storageUnavailable, .storageDamaged, .shuttingDown, .tooManySubscribers: 503
        case .tooManyStreamsFromClient: 429
        case .internalError: 500
        }
    }

    public var title: String {
        switch self {
        case .notFound: "No such resource"
        case .methodNotAllowed: "Method not allowed on this resource"
        case .profileNotFound: "Profile not found"
        case .invalidProfileName: "Invalid profile name"
        case .malformedJSON: "Malformed JSON"
        case .invalidBody: "Invalid request body"
        case .unsupportedMediaType: "Unsupported media type"
        case .payloadTooLarge: "Request body too large"
        case .badFraming: "Malformed request framing"
        case .repeatedHeaderField: "Header field sent more than once"
        case .preconditionFailed: "Precondition failed"
        case .counterOutOfRange: "Counter would leave the 64-bit integer range"
        case .preferenceNotFound: "No value for this key"
        case .invalidPreferenceKey: "Invalid preference key"
        case .invalidValue: "Value not acceptable for this key"
        case .valueTooLarge: "Value too large"
        case .nestedTooDeeply: "Value nested too deeply"
        case .tooManyPreferences: "Too many stored preferences"
        case .invalidQuery: "Invalid query parameter"
        case .sessionNotFound: "Navigation session not found"
        case .screenNotFound: "Screen not in this session"
        case .tooManySessions: "Too many navigation sessions"
        case .invalidNavigation: "Navigation value not acceptable"
        case .screenAlreadyOnStack: "Screen already on the stack"
        case .screenNotOnStack: "Screen not on the stack"
        case .duplicateScreens: "A stack lists a screen twice"
        case .stackFull: "Stack full"
        case .screenIsPresented: "Screen is presented modally"
        case .screenOnStack: "Screen is on the stack"
        case .alreadyPresenting: "A screen is already presented"
        case .tooManySubscribers: "Too many event streams on this server"
        case .tooManyStreamsFromClient: "Too many event streams from this client"
        case .storageUnavailable: "Storage unavailable"
        case .storageDamaged: "Storage damaged"
        case .shuttingDown: "Server shutting down"
        case .internalError: "Internal server error"
        case .unauthorized: "Authentication required"
        case .forbidden: "Not allowed with this token"
        case .tokenNotFound: "Token not found"
        case .malformedPath: "Malformed request target"
        case .requestTimeout: "Request not received in time"
        case .uriTooLong: "Request target too long"
        case .headersTooLarge: "Request header fields too large"
        case .unsupportedTransferCoding: "Transfer coding not supported"
        case .serverBusy: "Server busy"
        case .hostNotAllowed: "Host not served here"
        case .invalidHost: "Missing, repeated or malformed Host"
        case .invalidOrigin: "More than one Origin"
        case .quotaExceeded: "Profile storage quota exceeded"
        case .httpVersionNotSupported: "HTTP version not supported"
        case .foreignOrigin: "Request from a foreign web origin"
        case .invalidIdempotencyKey: "Invalid Idempotency-Key"
        case .invalidDeviceName: "Invalid NavPrefs-Device"
        case .idempotencyKeyReused: "Idempotency-Key used for another request"
        }
    }
}
