import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPTestClient
import NavPrefsClient
import Testing

/// One test's server (behind a proxy the test can break), and the profiles it opens: each with
/// a mirror suite of its own, a notification center of its own, and short timings.
final class ClientRig: Sendable {
    let scratch: Scratch
    let server: ServerProcess
    let proxy: TCPProxy
    let database: String
    private let opened = Locked<[NavPrefsProfile]>([])

    /// The server's flags for tests: heartbeats every second, reconnects after 200 ms.
    static let serverFlags = ["--sse-heartbeat", "1", "--sse-retry", "200"]

    init(database: String? = nil, extra: [String] = []) async throws {
        scratch = try Scratch()
        self.database = database ?? "sqlite:" + scratch.path("navprefs.sqlite")
        server = try await ServerProcess(database: self.database, logPath: scratch.path("server.log"), extra: Self.serverFlags + extra)
        proxy = try TCPProxy(upstreams: [server.port])
    }

    var url: URL { URL(string: "http://127.0.0.1:\(proxy.port)")! }

    /// A profile object on the proxy, its mirror under `suite` (new by default), not started,
    /// its writes naming `deviceName` (the host's by default).
    func profile(_ name: String, suite: String = "navprefs-test-\(UUID().uuidString)", center: NotificationCenter = NotificationCenter(),
                 deadAfter: Duration = .seconds(4), configuration: URLSessionConfiguration = .default,
                 deviceName: String? = nil) throws -> NavPrefsProfile {
        let client = NavPrefsClient(server: url, deviceName: deviceName, configuration: configuration)
        let profile = try client.profile(name, options: ProfileOptions(
            suiteName: suite, notificationCenter: center, notificationDelivery: .immediately,
            stream: StreamOptions(deadConnectionTimeout: deadAfter, reconnectDelay: .milliseconds(200), maxReconnectDelay: .seconds(1))))
        opened.withLock { $0.append(profile) }
        return profile
    }

    /// A request straight to the server (not through the library).
    func request(_ method: String, _ path: String, json: String? = nil, headers: [(String, String)] = []) async throws -> TestResponse {
        if let json { return try await TestHTTP.request(port: server.port, method, path, headers: headers, json: json) }
        return try await TestHTTP.request(port: server.port, method, path, headers: headers)
    }

    /// Stops every profile (erasing its mirror), the proxy and the server; removes the files.
    func finish() async {
        for profile in opened.withLock({ $0 }) { await profile.close(erasingMirror: true) }
        proxy.close()
        await server.stop()
        scratch.remove()
    }
}

/// Runs `body` with a rig, finishing it also when `body` throws.
func withRig<T>(extra: [String] = [], _ body: (ClientRig) async throws -> T) async throws -> T {
    let rig = try await ClientRig(extra: extra)
    do {
        let result = try await body(rig)
        await rig.finish()
        return result
    } catch {
        await rig.finish()
        throw error
    }
}

/// A value tests share across tasks.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// Collects what a notification center posts under `name`.
final class NotificationLog: @unchecked Sendable {
    // Safety: `count` is only touched under `lock`; the observer token is set once.
    private let lock = NSLock()
    private var posts: [[AnyHashable: Any]] = []
    private var token: (any NSObjectProtocol)?
    private let center: NotificationCenter

    init(_ name: Notification.Name, on center: NotificationCenter) {
        self.center = center
        token = center.addObserver(forName: name, object: nil, queue: nil) { [weak self] notification in
            guard let self else { return }
            lock.lock()
            posts.append(notification.userInfo ?? [:])
            lock.unlock()
        }
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return posts.count
    }

    var last: [AnyHashable: Any]? {
        lock.lock()
        defer { lock.unlock() }
        return posts.last
    }

    deinit { if let token { center.removeObserver(token) } }
}

/// Collects a profile's events as they arrive.
final class EventLog: Sendable {
    private let events = Locked<[ProfileEvent]>([])
    private let task: Task<Void, Never>

    init(_ profile: NavPrefsProfile) {
        let stream = profile.events()
        let events = self.events
        task = Task { for await event in stream { events.withLock { $0.append(event) } } }
    }

    var all: [ProfileEvent] { events.withLock { $0 } }
    /// The ids of the logged events (not `reset` or `shutdown`), in arrival order.
    var ids: [Int64] { all.filter { $0.type != "shutdown" && $0.type != "reset" }.compactMap(\.id) }

    deinit { task.cancel() }
}
