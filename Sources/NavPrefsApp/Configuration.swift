import Foundation
public import NavPrefsHTTPAPI
public import NavPrefsSQLite
import NavPrefsStore

/// Every setting of the `navprefs` executable. Each comes from a flag (`--port 8080` or
/// `--port=8080`) or an environment variable (`PORT`); flags win over the environment, which
/// wins over the defaults. Parsing is a pure function of the arguments and the environment.
public struct Configuration: Sendable, Equatable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var database = DatabaseLocation.sqlite(path: "navprefs.sqlite")
    public var sqliteSynchronous = Durability.full
    public var postgresPoolSize = 8
    public var maxBodyBytes = 1 << 20
    public var maxConnections = 16_384
    public var maxConnectionsPerIP = 1_024
    public var idleTimeoutSeconds = 60
    public var connectionMemoryBytes = 6 << 10
    public var shutdownGraceSeconds = 8
    public var readinessDrainSeconds = 1
    public var logLevel = Logger.Level.info
    public var logFormat = Logger.Format.json
    public var corsOrigins = CORSPolicy.none
    /// Serve without tokens on an address other than loopback (Redis' protected mode, turned off).
    public var allowUnauthenticated = false
    /// Host names and addresses the service answers to besides loopback ones (`*`: any); when
    /// tokens protect it and none is listed, it answers to any.
    public var allowedHosts: Set<String> = []
    /// Proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed.
    public var trustedProxies: Set<String> = []
    /// A file holding a secret mixed into the stream-token key; read at start into ``streamSecret``.
    public var streamSecretFile: String?
    /// The secret read from ``streamSecretFile`` (not a setting of its own).
    public var streamSecret: String?
    public var headerTimeoutSeconds = 20
    public var bodyTimeoutSeconds = 60
    public var maxBufferedBodyBytes = 64 << 20
    public var maxBufferedAnswerBytes = 256 << 20
    public var loopBodyBytes = 16 << 10
    public var loopReadBytes = 64 << 10
    public var sseHeartbeatSeconds = 15
    public var sseRetryMilliseconds = 2_000
    public var sseMaxSubscribers = 10_000
    public var sseMaxSubscribersPerIP = 256
    public var sseStreamBufferBytes = 1 << 20
    public var sseBufferTotalBytes = 64 << 20
    public var sseSocketBufferBytes = 16 << 10
    public var eventRetentionCount = EventRetention().count
    public var eventRetentionSeconds = Int(EventRetention().age.components.seconds)
    /// Bytes of events one profile's log keeps (``StoreLimits/maxEventLogBytes``); 0: no bound.
    public var eventRetentionBytes = StoreLimits().maxEventLogBytes
    public var idempotencyWindowSeconds = Int(StoreLimits().idempotencyWindow.components.seconds)
    public var idempotencyKeysPerProfile = StoreLimits().maxIdempotencyKeysPerProfile
    public var idempotencyKeysPerToken = StoreLimits().maxIdempotencyKeysPerToken
    /// Bytes one profile may hold (values, defaults, sessions, idempotency records); 0: no quota.
    public var profileQuotaBytes = StoreLimits().profileQuotaBytes
    public var sessionIdleExpirySeconds = Int(StoreLimits().sessionIdleExpiry.components.seconds)

    public init() {}

    /// What the command line asks for.
    public enum Command: Sendable, Equatable {
        case run(Configuration)
        case help
    }

    /// Whether the service can be reached from this machine only: protected mode applies otherwise.
    public var listensOnLoopbackOnly: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Protected mode: tokens are needed even while none exists, because the service listens
    /// beyond loopback and was not told to serve everyone.
    public var requiresTokens: Bool { !listensOnLoopbackOnly && !allowUnauthenticated }

    /// The hosts answered to: loopback always, the listed ones, and any at all under `*` or
    /// when tokens protect the service and none is listed (a page cannot send a token it does not
    /// have; the open mode must never answer a rebound name).
    public var effectiveAllowedHosts: Set<String> {
        if allowedHosts.isEmpty && requiresTokens { return ["*"] }
        return allowedHosts
    }

    public static func parse(arguments: [String], environment: [String: String]) throws(ConfigurationError) -> Command {
        var configuration = Configuration()
        for setting in Setting.all {
            if let value = environment[setting.environment] {
                try setting.apply(value, &configuration, "\(setting.environment) (environment)")
            }
        }
        var remaining = arguments.dropFirst()[...]
        while let argument = remaining.popFirst() {
            if argument == "--help" || argument == "-h" { return .help }
            guard argument.hasPrefix("--") else { throw ConfigurationError("unexpected argument '\(argument)'") }
            let name: Substring, value: String
            if let equals = argument.firstIndex(of: "=") {
                name = argument[argument.index(argument.startIndex, offsetBy: 2)..<equals]
                value = String(argument[argument.index(after: equals)...])
            } else if let setting = Setting.all.first(where: { $0.flag == argument.dropFirst(2) }), let implied = setting.valueWhenAlone {
                // A switch (`--allow-unauthenticated`): the flag alone stands for its value.
                try setting.apply(implied, &configuration, argument)
                continue
            } else {
                name = argument.dropFirst(2)
                guard let next = remaining.popFirst() else { throw ConfigurationError("--\(name) needs a value") }
                value = next
            }
            guard let setting = Setting.all.first(where: { $0.flag == name }) else {
                throw ConfigurationError("unknown option --\(name)")
            }
            try setting.apply(value, &configuration, "--\(name)")
        }
        return .run(configuration)
    }

    /// The settings as logged at start (the database URL's password redacted).
    public var loggedFields: [(String, String)] {
        Setting.all.map { ($0.flag, $0.current(self)) }
    }

    /// Every setting as documented: flag, environment variable, default and meaning.
    public static var settings: [(flag: String, environment: String, defaultValue: String, help: String)] {
        Setting.all.map { ("--" + $0.flag, $0.environment, $0.current(Configuration()), $0.help) }
    }

    /// `--help` text.
    public static var usage: String {
        var text = """
            navprefs: UserDefaults, NotificationCenter and UINavigationController semantics over HTTP.

            usage: navprefs [--option value]...
                   navprefs tokens create|list|revoke ...   (access tokens; navprefs tokens --help)

            Every option can also be set by its environment variable; an option on the command line wins.

            """
        let flags = Setting.all.map { "--\($0.flag) \($0.placeholder)" }
        let width = (flags.map(\.count).max() ?? 0) + 2
        for (setting, flag) in zip(Setting.all, flags) {
            text += "  \(flag.padding(toLength: width, withPad: " ", startingAt: 0))\(setting.environment)\n"
            text += "      \(setting.help) (default: \(setting.current(Configuration())))\n"
        }
        return text
    }
}

/// Where the data lives.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    /// `sqlite:PATH` (or `sqlite:///absolute/path`): the embedded store.
    case sqlite(path: String)
    /// `postgres://` or `postgresql://` URL, or libpq's keyword form (`host=a,b dbname=navprefs
    /// target_session_attrs=read-write`), handed to libpq as is: the shared store that several
    /// instances use at once. Both forms may list several hosts, which is how an instance finds
    /// the new primary after a failover (libpq's own; no proxy needed).
    case postgres(url: String)

    init(parsing text: String) throws(ConfigurationError) {
        if text.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path.removeFirst(2) }  // sqlite:///abs/path
            guard !path.isEmpty else { throw ConfigurationError("the database URL 'sqlite:' needs a file path, e.g. sqlite:navprefs.sqlite") }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") || Self.isKeywordForm(text) {
            self = .postgres(url: text)
        } else {
            throw ConfigurationError("unsupported database URL '\(Self.redacted(String(text.prefix(40))))'; use sqlite:PATH, postgres://... or host=... dbname=...")
        }
    }

    /// Whether `text` is libpq's `keyword=value ...` form: it starts with a keyword and `=`.
    static func isKeywordForm(_ text: String) -> Bool {
        let trimmed = text.drop { $0 == " " }
        guard let equals = trimmed.firstIndex(of: "=") else { return false }
        let keyword = trimmed[..<equals].trimmingSpaces
        return !keyword.isEmpty && keyword.allSatisfy { ($0.isASCII && $0.isLetter) || $0 == "_" }
    }

    /// The location as logged and shown: a PostgreSQL password is replaced by `***`, in the
    /// user part (`user:secret@host`) and in a `password=` parameter.
    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let url): Self.redacted(url)
        }
    }

    /// `text` with the password of a `scheme://user:password@host/...?password=...` URL and every
    /// other secret parameter (`sslpassword=`, ``ConnectionKeywords/secrets``), or those values of a
    /// keyword connection string, hidden.
    static func redacted(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return ConnectionKeywords.redacted(text) }
        var result = String(text[..<schemeEnd.upperBound])
        let rest = text[schemeEnd.upperBound...]
        // The authority ends at the first '/', '?' or '#'; its user part at its last '@'.
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                result += userInfo[..<colon] + ":***"
            } else {
                result += userInfo
            }
            result += authority[at...]
        } else {
            result += authority
        }
        var tail = String(rest[authorityEnd...])
        if let query = tail.firstIndex(of: "?") {
            let parameters = tail[tail.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { parameter in
                guard let equals = parameter.firstIndex(of: "="), ConnectionKeywords.isSecret(parameter[..<equals]) else { return String(parameter) }
                return parameter[...equals] + "***"
            }
            tail = tail[...query] + parameters.joined(separator: "&")
        }
        return result + tail
    }
}

/// A setting that cannot be used, in one line.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// One setting: its flag, its environment variable, how to parse it and how to show it.
struct Setting: Sendable {
    let flag: String
    let environment: String
    let placeholder: String
    let help: String
    let apply: @Sendable (String, inout Configuration, String) throws(ConfigurationError) -> Void
    let current: @Sendable (Configuration) -> String
    /// For a switch: the value its flag stands for when given without one (`--flag` alone);
    /// `nil` for settings that always take a value.
    var valueWhenAlone: String? = nil

    static let all: [Setting] = [
        Setting(flag: "host", environment: "HOST", placeholder: "ADDRESS",
                help: "address to listen on (0.0.0.0 for every interface)",
                apply: { value, configuration, source throws(ConfigurationError) in
                    guard !value.isEmpty else { throw ConfigurationError("\(source): the host cannot be empty") }
                    configuration.host = value
                }, current: { $0.host }),
        integer("port", "PORT", "port to listen on (0 picks a free one)", 0...65_535, { $0.port }, { $0.port = $1 }),
        Setting(flag: "database", environment: "DATABASE_URL", placeholder: "URL",
                help: "where data lives: sqlite:PATH (one instance, embedded), or postgres://USER:PASSWORD@HOST:PORT/DATABASE or libpq's host=... dbname=... (several instances; list every PostgreSQL node, host=a,b with target_session_attrs=read-write, to follow a failover)",
                apply: { value, configuration, _ throws(ConfigurationError) in
                    configuration.database = try DatabaseLocation(parsing: value)
                }, current: { $0.database.description }),
        choice("sqlite-synchronous", "SQLITE_SYNCHRONOUS",
               "full: an acknowledged write survives power loss; normal: it survives a crash of the process only",
               Durability.allCases.map(\.rawValue), { Durability(rawValue: $0) },
               { $0.sqliteSynchronous.rawValue }, { $0.sqliteSynchronous = $1 }),
        integer("postgres-pool-size", "POSTGRES_POOL_SIZE",
                "PostgreSQL connections (each with a thread) this instance runs storage calls on; one more listens for other instances' events",
                1...1_000, { $0.postgresPoolSize }, { $0.postgresPoolSize = $1 }),
        integer("max-body-bytes", "MAX_BODY_BYTES", "largest request body accepted (413 beyond)", 1...(64 << 20),
                { $0.maxBodyBytes }, { $0.maxBodyBytes = $1 }),
        integer("max-connections", "MAX_CONNECTIONS", "open connections in all", 1...1_000_000,
                { $0.maxConnections }, { $0.maxConnections = $1 }),
        integer("max-connections-per-ip", "MAX_CONNECTIONS_PER_IP", "open connections per client address", 1...1_000_000,
                { $0.maxConnectionsPerIP }, { $0.maxConnectionsPerIP = $1 }),
        integer("idle-timeout", "IDLE_TIMEOUT_SECONDS", "seconds before an idle connection is closed (0: never)", 0...86_400,
                { $0.idleTimeoutSeconds }, { $0.idleTimeoutSeconds = $1 }),
        integer("connection-memory-bytes", "CONNECTION_MEMORY_BYTES",
                "memory per connection for request headers and send buffers (431 for larger headers); it is most of what an idle event stream costs",
                4_096...(1 << 20), { $0.connectionMemoryBytes }, { $0.connectionMemoryBytes = $1 }),
        integer("shutdown-grace", "SHUTDOWN_GRACE_SECONDS",
                "seconds requests in flight get to finish after SIGTERM (keep below the orchestrator's, Docker: 10)",
                0...3_600, { $0.shutdownGraceSeconds }, { $0.shutdownGraceSeconds = $1 }),
        integer("readiness-drain", "READINESS_DRAIN_SECONDS",
                "seconds /readyz answers 503 after SIGTERM before the listener closes (load balancers notice); counts toward the orchestrator's limit",
                0...60, { $0.readinessDrainSeconds }, { $0.readinessDrainSeconds = $1 }),
        list("allowed-hosts", "ALLOWED_HOSTS",
             "host names the service answers to besides localhost and loopback addresses (* for any; against DNS rebinding); with tokens required and none listed, any",
             { $0.allowedHosts }, { $0.allowedHosts = $1 }),
        list("trusted-proxies", "TRUSTED_PROXIES",
             "addresses of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (client addresses for stream limits, Secure cookies)",
             { $0.trustedProxies }, { $0.trustedProxies = $1 }),
        Setting(flag: "stream-secret-file", environment: "STREAM_SECRET_FILE", placeholder: "PATH",
                help: "a file holding a secret mixed into the key that signs stream tokens, so that reading the database is not enough to forge one (give every instance the same file)",
                apply: { value, configuration, source throws(ConfigurationError) in
                    guard !value.isEmpty else { throw ConfigurationError("\(source): the path cannot be empty") }
                    configuration.streamSecretFile = value
                }, current: { $0.streamSecretFile ?? "" }),
        integer("header-timeout", "HEADER_TIMEOUT_SECONDS", "seconds a request's line and headers may take to arrive, however steadily (slowloris)",
                1...3_600, { $0.headerTimeoutSeconds }, { $0.headerTimeoutSeconds = $1 }),
        integer("body-timeout", "BODY_TIMEOUT_SECONDS", "seconds a request's body may take to arrive once its headers are in (408 after)",
                1...3_600, { $0.bodyTimeoutSeconds }, { $0.bodyTimeoutSeconds = $1 }),
        integer("max-buffered-body-bytes", "MAX_BUFFERED_BODY_BYTES", "request bodies held at once by the whole server (503 beyond)",
                1_024...(1 << 34), { $0.maxBufferedBodyBytes }, { $0.maxBufferedBodyBytes = $1 }),
        integer("max-buffered-answer-bytes", "MAX_BUFFERED_ANSWER_BYTES",
                "bytes large answers (256 KiB or more: a large profile's state) may hold together until their clients read them (503 beyond)",
                1_048_576...(1 << 40), { $0.maxBufferedAnswerBytes }, { $0.maxBufferedAnswerBytes = $1 }),
        integer("loop-body-bytes", "LOOP_BODY_BYTES",
                "request bodies larger than this are decoded and handled on threads of their own, not the event loop that serves every connection",
                0...(64 << 20), { $0.loopBodyBytes }, { $0.loopBodyBytes = $1 }),
        integer("loop-read-bytes", "LOOP_READ_BYTES",
                "bytes of values a SQLite read may take on the event loop; a larger read (and the rendering of its answer) moves to a reader thread",
                0...(64 << 20), { $0.loopReadBytes }, { $0.loopReadBytes = $1 }),
        Setting(flag: "cors-origins", environment: "CORS_ORIGINS", placeholder: "LIST",
                help: "web origins allowed to call the API from a browser, comma-separated, or * for any",
                apply: { value, configuration, _ throws(ConfigurationError) in configuration.corsOrigins = CORSPolicy(parsing: value) },
                current: { $0.corsOrigins.origins.sorted().joined(separator: ",") }),
        integer("sse-heartbeat", "SSE_HEARTBEAT_SECONDS", "longest silence on an event stream: a stream quiet this long gets a heartbeat comment", 1...3_600,
                { $0.sseHeartbeatSeconds }, { $0.sseHeartbeatSeconds = $1 }),
        integer("sse-retry", "SSE_RETRY_MILLISECONDS", "reconnection delay suggested to event stream clients", 0...3_600_000,
                { $0.sseRetryMilliseconds }, { $0.sseRetryMilliseconds = $1 }),
        integer("sse-max-subscribers", "SSE_MAX_SUBSCRIBERS", "event streams open at once (503 beyond)", 1...1_000_000,
                { $0.sseMaxSubscribers }, { $0.sseMaxSubscribers = $1 }),
        integer("sse-max-subscribers-per-ip", "SSE_MAX_SUBSCRIBERS_PER_IP", "event streams per access token, or per client address while no token is needed (429 beyond)",
                1...1_000_000, { $0.sseMaxSubscribersPerIP }, { $0.sseMaxSubscribersPerIP = $1 }),
        integer("sse-stream-buffer-bytes", "SSE_STREAM_BUFFER_BYTES",
                "bytes one event stream may hold unsent; past it the events it holds give way to a reset event and the stream goes on (a stream still full at its next reset, having read nothing, is closed)",
                4_096...(1 << 30), { $0.sseStreamBufferBytes }, { $0.sseStreamBufferBytes = $1 }),
        integer("sse-buffer-total-bytes", "SSE_BUFFER_TOTAL_BYTES",
                "bytes all event streams together may hold unsent; past it the streams holding the most get a reset first",
                65_536...(1 << 40), { $0.sseBufferTotalBytes }, { $0.sseBufferTotalBytes = $1 }),
        integer("sse-socket-buffer-bytes", "SSE_SOCKET_BUFFER_BYTES",
                "the send buffer of each event stream's socket (the kernel reserves twice it): what a client that does not read costs the kernel",
                4_096...(4 << 20), { $0.sseSocketBufferBytes }, { $0.sseSocketBufferBytes = $1 }),
        integer("event-retention-count", "EVENT_RETENTION_COUNT", "events kept per profile for replay", 1...10_000_000,
                { $0.eventRetentionCount }, { $0.eventRetentionCount = $1 }),
        integer("event-retention-age", "EVENT_RETENTION_SECONDS", "seconds events are kept for replay", 1...31_536_000,
                { $0.eventRetentionSeconds }, { $0.eventRetentionSeconds = $1 }),
        integer("event-retention-bytes", "EVENT_RETENTION_BYTES",
                "bytes of events kept per profile for replay (its writes delete the oldest beyond them; 0: no bound in bytes)",
                0...(1 << 40), { $0.eventRetentionBytes }, { $0.eventRetentionBytes = $1 }),
        integer("idempotency-window", "IDEMPOTENCY_WINDOW_SECONDS",
                "seconds a write's Idempotency-Key is remembered: a retry within them gets the first answer", 1...2_592_000,
                { $0.idempotencyWindowSeconds }, { $0.idempotencyWindowSeconds = $1 }),
        integer("idempotency-keys-per-profile", "IDEMPOTENCY_KEYS_PER_PROFILE",
                "Idempotency-Keys one profile remembers at most (the oldest go first): the window holds for a profile taking at most this many keyed writes in it", 16...1_000_000,
                { $0.idempotencyKeysPerProfile }, { $0.idempotencyKeysPerProfile = $1 }),
        integer("idempotency-keys-per-token", "IDEMPOTENCY_KEYS_PER_TOKEN",
                "Idempotency-Keys one access token's writes leave at most, over every profile (the oldest go first)", 16...10_000_000,
                { $0.idempotencyKeysPerToken }, { $0.idempotencyKeysPerToken = $1 }),
        integer("profile-quota-bytes", "PROFILE_QUOTA_BYTES",
                "bytes one profile may hold (values, registered defaults, sessions, idempotency records; 0: no quota); a write beyond it that grows the profile is refused with 409", 0...(1 << 40),
                { $0.profileQuotaBytes }, { $0.profileQuotaBytes = $1 }),
        integer("session-idle-expiry", "SESSION_IDLE_EXPIRY_SECONDS",
                "seconds a navigation session may go unchanged before it is deleted (an expire event is logged)", 1...315_360_000,
                { $0.sessionIdleExpirySeconds }, { $0.sessionIdleExpirySeconds = $1 }),
        choice("log-level", "LOG_LEVEL", "least severe log lines written", Logger.Level.allCases.map(\.name),
               { Logger.Level(name: $0) }, { $0.logLevel.name }, { $0.logLevel = $1 }),
        choice("allow-unauthenticated", "ALLOW_UNAUTHENTICATED",
               "serve with no token stored on an address other than loopback (anyone who reaches it may read and write every profile); the flag alone means true",
               ["false", "true"], { ["true": true, "false": false, "1": true, "0": false, "yes": true, "no": false][$0] },
               { String($0.allowUnauthenticated) }, { $0.allowUnauthenticated = $1 }, valueWhenAlone: "true"),
        choice("log-format", "LOG_FORMAT", "json (one object per line) or text", Logger.Format.allCases.map(\.rawValue),
               { Logger.Format(rawValue: $0) }, { $0.logFormat.rawValue }, { $0.logFormat = $1 }),
    ]

    private static func integer(
        _ flag: String, _ environment: String, _ help: String, _ range: ClosedRange<Int>,
        _ get: @escaping @Sendable (Configuration) -> Int, _ set: @escaping @Sendable (inout Configuration, Int) -> Void
    ) -> Setting {
        Setting(flag: flag, environment: environment, placeholder: "N", help: help,
                apply: { value, configuration, source throws(ConfigurationError) in
                    guard let number = Int(value), range.contains(number) else {
                        throw ConfigurationError("\(source): '\(value.prefix(40))' is not a whole number in \(range.lowerBound)...\(range.upperBound)")
                    }
                    set(&configuration, number)
                }, current: { String(get($0)) })
    }

    /// A comma-separated list, kept as a set of its trimmed members.
    private static func list(
        _ flag: String, _ environment: String, _ help: String,
        _ get: @escaping @Sendable (Configuration) -> Set<String>, _ set: @escaping @Sendable (inout Configuration, Set<String>) -> Void
    ) -> Setting {
        Setting(flag: flag, environment: environment, placeholder: "LIST", help: help,
                apply: { value, configuration, _ throws(ConfigurationError) in
                    set(&configuration, Set(value.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces)) }.filter { !$0.isEmpty }))
                }, current: { get($0).sorted().joined(separator: ",") })
    }

    private static func choice<Value: Sendable>(
        _ flag: String, _ environment: String, _ help: String, _ names: [String],
        _ make: @escaping @Sendable (String) -> Value?,
        _ get: @escaping @Sendable (Configuration) -> String, _ set: @escaping @Sendable (inout Configuration, Value) -> Void,
        valueWhenAlone: String? = nil
    ) -> Setting {
        Setting(flag: flag, environment: environment, placeholder: names.joined(separator: "|"), help: help,
                apply: { value, configuration, source throws(ConfigurationError) in
                    guard let parsed = make(value.lowercased()) else {
                        throw ConfigurationError("\(source): '\(value.prefix(40))' is not one of \(names.joined(separator: ", "))")
                    }
                    set(&configuration, parsed)
                }, current: get, valueWhenAlone: valueWhenAlone)
    }
}
