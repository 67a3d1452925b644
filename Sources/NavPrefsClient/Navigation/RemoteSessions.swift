import Foundation

/// The profile's navigation sessions: the list (mirrored, offline), creating one, and the
/// session objects that drive one.
public struct RemoteSessions: Sendable {
    let core: ProfileCore

    /// The sessions as the mirror knows them, oldest first: kept in step by `navigation`
    /// events (created, deleted, expired, moved).
    public var list: [SessionInfo] {
        core.mirror.read { state, _ in state.sessions.map(\.info) }
    }

    /// Makes a session whose stack is exactly `root`; `label` names it for its client (an app's
    /// launch, say: sessions unchanged for the server's idle expiry are deleted on their own).
    /// `appearance` and `options` are the API's `BarAppearanceInput` and `NavigationOptionsInput`.
    public func create(root: NavigationScreen, label: String? = nil, appearance: JSON? = nil, options: JSON? = nil,
                       idempotencyKey: String? = nil) async throws(NavPrefsError) -> RemoteSession {
        var body = [JSON.Member("root", root.json)]
        if let label { body.append(.init("label", .string(label))) }
        if let appearance { body.append(.init("appearance", appearance)) }
        if let options { body.append(.init("options", options)) }
        let answer = try await core.write("POST", core.path + "/sessions", body: .object(body), idempotencyKey: idempotencyKey)
        let state = try answer.json()
        guard let id = state["session"]?.stringValue else { throw .invalidResponse("a new session without its id") }
        let session = RemoteSession(id: id, core: core)
        session.adopt(state)
        // The create event would add it to the list; the answer is here first.
        await core.applyAnswer(type: "navigation", data: .object([
            .init("session", .string(id)), .init("action", "create"), .init("label", label.map(JSON.string) ?? .null),
            .init("stack", .array(session.stack.map(JSON.string))), .init("version", .integer(session.version)),
        ]))
        return session
    }

    /// A session object for `id` (of this profile), following its events; call
    /// ``RemoteSession/reload()`` for its screens.
    public func session(_ id: String) -> RemoteSession {
        RemoteSession(id: id, core: core)
    }

    /// Reads the list from the server.
    public func fetch() async throws(NavPrefsError) -> [SessionInfo] {
        let answer = try await core.http.send("GET", core.path + "/sessions")
        return (try answer.json()["sessions"]?.arrayValue ?? []).compactMap(MirrorState.Session.init(json:)).map(\.info)
    }
}

extension MirrorState.Session {
    var info: SessionInfo {
        SessionInfo(id: id, label: label, version: version, depth: depth, root: root, top: top, createdAt: createdAt, updatedAt: updatedAt)
    }
}
