import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON

/// An admin's question "what did this token, or this device, change here?": a profile's events,
/// on the stream and in the log's JSON pages, kept to those whose author has the token id
/// (`?by_token=`, a token id or `open`) and the device name (`?by_device=`) asked for. As with
/// `types`, a page reads `limit` events of the log and shows those that match, and `lastEventId`
/// moves past them all (a stream's position too), so a client pages through the log whatever
/// matches. Events logged before authors were recorded match neither.
struct AuthorFilter: Sendable, Equatable {
    let token: String?
    let device: String?

    /// The filter the request asks for, `nil` when it asks for none.
    /// - Throws: 403 for a caller who is not an admin (a profile token sees its profile's events
    ///   with their authors, but filtering by author is the admins' view of who changed what),
    ///   400 for a value no author can have: a token that is no token id (12 lowercase hex
    ///   digits) nor `open`, a device that is no device name (``DeviceName``).
    init?(of request: APIRequest) throws(APIError) {
        let token = request.http.queryValue("by_token"), device = request.http.queryValue("by_device")
        guard token != nil || device != nil else { return nil }
        guard request.caller.seesEveryProfile else {
            throw APIError(.forbidden, "Filtering a profile's events by author ('by_token', 'by_device') needs an admin token.")
        }
        if let token, token != ChangeAuthor.openToken, !AccessToken.isWellFormedID(Substring(token)) {
            throw APIError(.invalidQuery, "'by_token' names a token id (12 lowercase hex digits) or 'open', not '\(token.prefix(40))'.")
        }
        if let device {
            do {
                _ = try DeviceName(device)
            } catch {
                throw APIError(.invalidQuery, "'by_device' names a device: \(error).")
            }
        }
        self.token = token
        self.device = device
    }

    /// Whether `event`'s author is the one asked for.
    func admits(_ event: LoggedEvent) -> Bool {
        guard case .object(let data)? = try? JSONValue.parse(event.data), let author = data["author"].flatMap(ChangeAuthor.init) else {
            return false
        }
        return (token.map { $0 == author.token } ?? true) && (device.map { $0 == author.device } ?? true)
    }
}
