public import Foundation
#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A NavPrefs server, as the library talks to it: its URL and the access token to send.
///
/// ```swift
/// let client = NavPrefsClient(server: URL(string: "https://prefs.example.com")!, token: token)
/// let profile = try client.profile("ana")
/// profile.start()                                   // mirror, then the event stream
/// profile.preferences.integer(forKey: "launches")   // synchronous, offline
/// profile.counter.increment()                       // synchronous, queued when offline
/// ```
public final class NavPrefsClient: Sendable {
    public let server: URL
    let http: HTTPClient

    /// The device this client's writes come from, as the server records it beside the token
    /// with every change (`NavPrefs-Device`); `nil` when it names none.
    public var deviceName: String? { http.deviceName }

    /// - Parameters:
    ///   - token: an access token (`npt_...`) for the profiles this client uses, or none for a
    ///     server in open mode.
    ///   - deviceName: the name a person knows this device by ("Ana's iPhone", "kitchen-ipad"),
    ///     sent with every write and recorded with its changes, so that other devices can say
    ///     who changed a value. By default the host name; `""` names none. Control characters
    ///     are left out and the name is cut to 64 characters, as the server takes it.
    ///   - configuration: the `URLSession` configuration for requests and event streams
    ///     (proxies, TLS, extra headers). On Linux, where the library reads HTTP itself, only
    ///     `timeoutIntervalForRequest` and `httpAdditionalHeaders` apply; certificate
    ///     authorities are the system's, or `SSL_CERT_FILE`'s.
    public init(server: URL, token: String? = nil, deviceName: String? = nil, configuration: URLSessionConfiguration = .default) {
        self.server = server
        let device = deviceName.map(DeviceNameField.cleaned) ?? DeviceNameField.hostName
        http = HTTPClient(server: server, token: token, deviceName: device, configuration: configuration)
    }

    /// The object for one profile: its preferences, counter, font settings and sessions,
    /// mirrored locally under `options.suiteName`. Nothing is read or connected until
    /// ``NavPrefsProfile/start()``.
    /// - Throws: ``NavPrefsError/invalidArgument(_:)`` for a suite name `UserDefaults` refuses;
    ///   ``NavPrefsError/storage(_:)`` when the outbox cannot be opened.
    public func profile(_ name: String, options: ProfileOptions = ProfileOptions()) throws(NavPrefsError) -> NavPrefsProfile {
        let suite = options.suiteName ?? Self.defaultSuiteName(server: server, profile: name)
        let mirror = try PreferenceMirror(suiteName: suite, server: server.absoluteString, profile: name)
        let outbox = Outbox(file: try OutboxFile(suite: suite))
        let core = ProfileCore(name: name, http: http, mirror: mirror, outbox: outbox,
                               announcer: Announcer(center: options.notificationCenter, delivery: options.notificationDelivery),
                               stream: options.stream, writeRetries: options.writeRetries)
        return NavPrefsProfile(core: core)
    }

    /// `navprefs.<host>-<port>.<profile>`: one mirror per server and profile.
    static func defaultSuiteName(server: URL, profile: String) -> String {
        "navprefs.\(server.host ?? "server")-\(server.port.map(String.init) ?? server.scheme ?? "").\(profile)"
    }
}

/// How a profile's mirror is kept and announced.
public struct ProfileOptions {
    /// The `UserDefaults` suite mirroring the profile (`nil`: one named after the server and the
    /// profile). An app group's suite lets extensions read the mirror too. The outbox of queued
    /// writes is `<suite>.navprefs-outbox`, in `$XDG_CONFIG_HOME` (or `~/.config`) on Linux and in
    /// Application Support/NavPrefs on Apple platforms.
    public var suiteName: String?
    /// Where `doRefreshNotification` and ``RemoteDefaults/didChangeNotification`` are posted.
    public var notificationCenter: NotificationCenter
    public var notificationDelivery: NotificationDelivery
    public var stream: StreamOptions
    /// How often a write of the `onServer` forms whose answer was lost (or that met a 503) is
    /// sent again, with the same idempotency key, before its error is thrown. (Queued writes are
    /// sent until answered.)
    public var writeRetries: Int

    public init(suiteName: String? = nil, notificationCenter: NotificationCenter = .default,
                notificationDelivery: NotificationDelivery = .mainActor, stream: StreamOptions = StreamOptions(), writeRetries: Int = 3) {
        self.suiteName = suiteName
        self.notificationCenter = notificationCenter
        self.notificationDelivery = notificationDelivery
        self.stream = stream
        self.writeRetries = writeRetries
    }
}
