import Foundation

/// One navigation session (a `UINavigationController` on the server), driven from here and
/// kept in step with the changes other devices make: it follows the session's `navigation`
/// events (stack, presented screen, version, deletion or expiry).
///
/// The server applies each change to the session as stored, one after the other, so two
/// devices pushing at once both land; UIKit's refusals (a screen pushed twice, a pop to a
/// screen not on the stack) come back as ``NavPrefsError/refused(_:)`` with UIKit's message in
/// the problem's `uikitMessage`.
public final class RemoteSession: Sendable {
    public let id: String
    let core: ProfileCore
    private let state = Locked(Snapshot())
    private let observers = Locked<[UUID: AsyncStream<JSON>.Continuation]>([:])

    struct Snapshot {
        var version: Int64 = 0
        var stack: [String] = []
        var presented: String?
        var deleted = false
        var last: JSON?
    }

    init(id: String, core: ProfileCore) {
        self.id = id
        self.core = core
        core.register(self)
    }

    /// The session's version as last seen (the id of the event that last changed it).
    public var version: Int64 { state.withLock { $0.version } }
    /// The screen ids on the stack, root first, as last seen.
    public var stack: [String] { state.withLock { $0.stack } }
    /// The id of the screen presented over the stack, if any.
    public var presented: String? { state.withLock { $0.presented } }
    /// Whether the session was deleted (here, elsewhere, or by the server's idle expiry).
    public var isDeleted: Bool { state.withLock { $0.deleted } }
    /// The session as last read or answered, whole (screens, appearance, options).
    public var lastKnown: JSON? { state.withLock { $0.last } }

    /// The session's `navigation` events from now on, as they arrive.
    public func changes() -> AsyncStream<JSON> {
        let (stream, continuation) = AsyncStream.makeStream(of: JSON.self, bufferingPolicy: .unbounded)
        let token = UUID()
        observers.withLock { $0[token] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.observers.withLock { $0.removeValue(forKey: token) } }
        return stream
    }

    // MARK: Reads

    /// Reads the whole session.
    @discardableResult
    public func reload() async throws(NavPrefsError) -> JSON {
        let answer = try await core.http.send("GET", path)
        let session = try answer.json()
        adopt(session)
        return session
    }

    /// What the bar shows now (title, back button, items, appearance), resolved by UIKit's rules.
    public func navigationBar() async throws(NavPrefsError) -> JSON {
        try await core.http.send("GET", path + "/navigation-bar").json()["navigationBar"] ?? .null
    }

    /// Which swipes may navigate now, and where to.
    public func gestures() async throws(NavPrefsError) -> JSON {
        try await core.http.send("GET", path + "/gestures").json()["gestures"] ?? .null
    }

    /// What `pan` would do (operation, target, whether it finishes); changes nothing.
    public func evaluate(_ pan: PanGesture) async throws(NavPrefsError) -> JSON {
        try await core.http.send("POST", path + "/gestures/evaluate", body: pan.json).json()["evaluation"] ?? .null
    }

    // MARK: Changes

    /// `pushViewController(_:animated:)`. Answers the transition.
    @discardableResult
    public func push(_ screen: NavigationScreen, animated: Bool = true) async throws(NavPrefsError) -> JSON {
        try await change("POST", "/push", "push", [.init("screen", screen.json), .init("animated", .bool(animated))])
    }

    /// `popViewController(animated:)`: at the root nothing changes (`popped` is null).
    @discardableResult
    public func pop(animated: Bool = true) async throws(NavPrefsError) -> JSON {
        try await change("POST", "/pop", "pop", [.init("animated", .bool(animated))])
    }

    /// `popToRootViewController(animated:)`.
    @discardableResult
    public func popToRoot(animated: Bool = true) async throws(NavPrefsError) -> JSON {
        try await change("POST", "/pop-to-root", "popToRoot", [.init("animated", .bool(animated))])
    }

    /// `popToViewController(_:animated:)`.
    @discardableResult
    public func pop(to screenID: String, animated: Bool = true) async throws(NavPrefsError) -> JSON {
        try await change("POST", "/pop-to", "popTo", [.init("screenId", .string(screenID)), .init("animated", .bool(animated))])
    }

    /// `setViewControllers(_:animated:)`.
    @discardableResult
    public func setStack(_ screens: [NavigationScreen], animated: Bool = true) async throws(NavPrefsError) -> JSON {
        try await change("PUT", "/stack", "setStack", [.init("screens", .array(screens.map(\.json))), .init("animated", .bool(animated))])
    }

    /// `present(_:animated:)`: the screen shows over the stack.
    @discardableResult
    public func present(_ screen: NavigationScreen, animated: Bool = true) async throws(NavPrefsError) -> JSON {
        try await change("POST", "/present", "present", [.init("screen", screen.json), .init("animated", .bool(animated))])
    }

    /// `dismiss(animated:)`.
    @discardableResult
    public func dismiss(animated: Bool = true) async throws(NavPrefsError) -> JSON {
        try await change("POST", "/dismiss", "dismiss", [.init("animated", .bool(animated))])
    }

    /// Performs `pan`: the stack changes if it finishes. Answers the evaluation and transition.
    @discardableResult
    public func perform(_ pan: PanGesture) async throws(NavPrefsError) -> JSON {
        let answer = try await core.write("POST", path + "/gestures/perform", body: pan.json)
        let body = try answer.json()
        if let transition = body["transition"], transition != .null, let version = body["version"]?.int64Value {
            await record(action: transition["action"]?.stringValue ?? "perform", answer: transition, version: version)
        }
        return body
    }

    /// Deletes the session.
    public func delete() async throws(NavPrefsError) {
        let answer = try await core.write("DELETE", path)
        let version = try answer.json()["version"]?.int64Value ?? version
        await core.applyAnswer(type: "navigation", data: .object([
            .init("session", .string(id)), .init("action", "delete"), .init("version", .integer(version)),
        ]))
        state.withLock { $0.deleted = true }
    }

    private var path: String { core.path + "/sessions/" + HTTPClient.segment(id) }

    private func change(_ method: String, _ suffix: String, _ action: String, _ body: [JSON.Member]) async throws(NavPrefsError) -> JSON {
        let answer = try await core.write(method, path + suffix, body: .object(body))
        let result = try answer.json()
        // An edit that changed nothing answers eventId null and logs no event.
        if let version = result["version"]?.int64Value, result["eventId"]?.int64Value != nil {
            await record(action: action, answer: result, version: version)
        }
        adopt(result)
        return result
    }

    /// Takes a write's answer in as the event it logged: for this object, its list line, and
    /// every other object following the session.
    private func record(action: String, answer: JSON, version: Int64) async {
        var event: [JSON.Member] = [.init("session", .string(id)), .init("action", .string(action))]
        let ids = answer["stack"]?["screens"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        if !ids.isEmpty { event.append(.init("stack", .array(ids.map(JSON.string)))) }
        if action == "present", let screen = answer["presented"]?["id"] { event.append(.init("screen", screen)) }
        event.append(.init("version", .integer(version)))
        await core.applyAnswer(type: "navigation", data: .object(event))
    }

    // MARK: Following

    /// Takes in a session answer (whole, or a transition with its stack), when not older.
    func adopt(_ answer: JSON) {
        guard let version = answer["version"]?.int64Value else { return }
        state.withLock { state in
            guard version >= state.version else { return }
            state.version = version
            if let ids = answer["stack"]?["screens"]?.arrayValue?.compactMap({ $0["id"]?.stringValue }), !ids.isEmpty { state.stack = ids }
            if let presented = answer["presented"] { state.presented = presented["id"]?.stringValue }
            if answer["appearance"] != nil { state.last = answer }
        }
    }

    /// Takes in one of the session's `navigation` events, when newer than what it knows.
    func follow(_ event: JSON) {
        guard let version = event["version"]?.int64Value else { return }
        let applied = state.withLock { state -> Bool in
            guard version > state.version else { return false }
            state.version = version
            switch event["action"]?.stringValue {
            case "delete", "expire": state.deleted = true
            case "present": state.presented = event["screen"]?.stringValue
            case "dismiss": state.presented = nil
            default: break
            }
            if let ids = event["stack"]?.arrayValue?.compactMap(\.stringValue), !ids.isEmpty { state.stack = ids }
            return true
        }
        guard applied else { return }
        for continuation in observers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }
}
