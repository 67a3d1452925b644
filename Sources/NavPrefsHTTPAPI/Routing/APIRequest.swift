public import MicroHTTPServer
import NavPrefsCore
public import NavPrefsStore

/// A routed request, as handlers see it.
public struct APIRequest: Sendable {
    public let http: HTTPRequest
    /// The matched template, e.g. `/v1/profiles/{profile}/counter`.
    public let template: String
    let parameterNames: [String]
    let parameterValues: [String]
    /// Who vouched for the request (the access token's id), if anyone had to.
    let caller: Authenticator.Caller
    /// The device a write named (`NavPrefs-Device`), if it named one.
    let device: DeviceName?
    /// The client's address: the peer's, or the one a trusted proxy forwarded.
    let client: String
    /// Whether the client reached a trusted proxy over TLS.
    let isSecure: Bool

    /// Who makes the request's write: the token that vouched for it (its id and label, never its
    /// secret) or the open mode, and the device it named. Recorded with what the write changes.
    var author: ChangeAuthor {
        ChangeAuthor(token: caller.tokenID, label: caller.label, device: device?.rawValue)
    }

    /// The value of template parameter `name` (always present once routed).
    func parameter(_ name: String) -> String {
        guard let index = parameterNames.firstIndex(of: name), index < parameterValues.count else { return "" }
        return parameterValues[index]
    }

    /// The `{profile}` path parameter, validated.
    func profile() throws(APIError) -> ProfileName {
        let text = parameter("profile")
        do {
            return try ProfileName(text)
        } catch {
            throw APIError(.invalidProfileName, "'\(text.prefix(80))' is not a valid profile name: \(error).")
        }
    }
}

/// What a route handler answers: a response now (from memory, on the event loop), a store call
/// that answers from the store's own thread, or (off the hot path) work that awaits.
///
/// A handler validates everything the request carries (path, query, headers, body) before it
/// hands work on, so that work can fail only with a ``StoreError``, which ``NavPrefsAPI`` maps
/// to its answer in one place. An answer that depends on what the store holds (a key with no
/// value) is a response the work returns, not an error it throws.
public enum APIResult: Sendable {
    case immediate(HTTPResponse)
    /// A store call made with a completion (``Store/perform(_:completion:)``): `start` runs on
    /// the event loop and hands the store a completion that gives `reply` the store's value and
    /// how to render it, once; the answer is rendered and finished on the event loop
    /// (``PendingReply``). This is the path of every write: one hand-off there, one back, and
    /// no task.
    case pending(@Sendable (_ reply: PendingReply) -> Void)
    /// Work that awaits (the store's `async` reads, the console's and listing routes): run as
    /// a task. Not the path of writes; see `pending`.
    case deferred(@Sendable () async throws(StoreError) -> HTTPResponse)
}

extension APIResult {
    /// A read answered on the event loop, before the handler returns, when the store reads
    /// there (SQLite) and it is small (``LoopReading/performOnCallingThread(_:)``); else read by the
    /// store's own thread (a reader, a PostgreSQL pool thread) and rendered on the loop, but for
    /// a read too large for the loop, which the large reader that read it renders. No task
    /// either way.
    ///
    /// A read too large for the loop, asked for with `If-None-Match` or by `HEAD`, is answered
    /// from `version` alone when that is enough: a 304 when the tag matches, the head of the 200
    /// for `HEAD`, both without a `Content-Length` (it would take the read to know it).
    static func reading<Value: Sendable>(_ read: StoreRead<Value>, from store: any Store,
                                         version: (read: StoreRead<Version>, request: HTTPRequest)? = nil,
                                         _ respond: @escaping @Sendable (Value) -> HTTPResponse) -> APIResult {
        .pending { reply in
            guard let store = store as? any LoopReading else { return store.perform(read) { reply.render($0, with: respond) } }
            switch store.performOnCallingThread(read) {
            case .done(let result):
                reply.render(result, with: respond)
            case .tooLarge:
                if let version, let answer = JSONResponse.fromVersion(version.read, of: store, for: version.request) {
                    return reply.rendered(answer)
                }
                // Rendered by the large reader that read it, below the loop's priority.
                store.performLarge(read) { reply.rendered($0.map(respond)) }
            case .elsewhere:
                store.performElsewhere(read) { reply.render($0, with: respond) }
            }
        }
    }
}
