import MicroHTTPServer
import Synchronization

/// Who may reach the API at all, decided from the request line and headers before any route
/// runs: the `Host` it was sent to (against DNS rebinding), the web `Origin` of a write (against
/// cross-site request forgery), and the client's address behind trusted proxies.
///
/// Why: in the open mode (no token yet) anyone who reaches the port may write. A web page the
/// owner visits can reach a loopback port too, by DNS rebinding (its own name resolving to
/// 127.0.0.1, so the browser sends `Host: evil.example`) or directly, with a form or `fetch`
/// (the browser sends `Origin: https://evil.example`). Refusing foreign hosts and foreign
/// origins' writes closes both.
public struct RequestPolicy: Sendable, Equatable {
    /// Host names and addresses the service answers to besides loopback (lowercase, no port);
    /// `*` answers every host.
    public var allowedHosts: Set<String> {
        didSet { verdicts = HostVerdicts() }
    }
    /// Addresses of reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed.
    public var trustedProxies: Set<String>
    /// `Host` values already judged: a client sends the same one on every request, and parsing
    /// it showed in profiles of the hot read path (several percent of a GET).
    private var verdicts = HostVerdicts()

    public init(allowedHosts: Set<String> = [], trustedProxies: Set<String> = []) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.trustedProxies = trustedProxies
    }

    public static func == (left: RequestPolicy, right: RequestPolicy) -> Bool {
        left.allowedHosts == right.allowedHosts && left.trustedProxies == right.trustedProxies
    }

    // MARK: Host

    /// Whether a request sent to `host` (the `Host` header) is served. Loopback names and
    /// addresses always are; others only when listed, or under `*`. A request without `Host`
    /// (HTTP/1.0; browsers always send one) is served.
    func admits(host: String?) -> Bool {
        guard let host, !allowedHosts.contains("*") else { return true }
        if let known = verdicts.verdict(for: host) { return known }
        // A value that is no host at all (`[::1].evil.example`) is no loopback name either.
        let admitted = Self.hostName(of: host).map { Self.isLoopback($0) || allowedHosts.contains($0) } ?? false
        verdicts.remember(admitted, for: host)
        return admitted
    }

    /// The name or address of a `Host` value, lowercase, without port or IPv6 brackets (and
    /// without a name's final dot), parsed strictly (``HostField/parse(_:)``: a bracketed
    /// literal is the whole name); `nil` for a value that is no `uri-host [":" port]`.
    static func hostName(of host: String) -> String? {
        guard let parsed = HostField.parse(host) else { return nil }
        var name = parsed.name
        if !parsed.isIPv6Literal, name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// `localhost` (and its subdomains, RFC 6761), 127.0.0.0/8 and `::1`.
    static func isLoopback(_ name: String) -> Bool {
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    // MARK: Origin

    /// Whether `origin` (the `Origin` header) is the page the API itself serves, reached through
    /// `host`: its scheme is http or https and its host and port are the request's `Host`.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host else { return false }
        let lowered = origin.lowercased(), target = host.lowercased()
        return lowered == "http://" + target || lowered == "https://" + target
    }

    // MARK: Client address

    /// The client's address: the peer's, or, when the peer is a trusted proxy, the nearest
    /// address in `X-Forwarded-For` that is not one (the rightmost entries were added by the
    /// proxies we trust, the ones left of them by whoever sent the request).
    func clientAddress(peer: String?, headers: HTTPHeaders) -> String {
        guard let peer else { return "-" }
        guard !trustedProxies.isEmpty, trustedProxies.contains(peer) else { return peer }
        let forwarded = headers.listMembers(for: HeaderName.xForwardedFor).map(String.init)
        for address in forwarded.reversed() where !trustedProxies.contains(address) {
            return String(address.prefix(64))
        }
        return forwarded.first.map { String($0.prefix(64)) } ?? peer
    }

    /// Whether the client reached a trusted proxy over TLS (`X-Forwarded-Proto: https`).
    func isSecure(peer: String?, headers: HTTPHeaders) -> Bool {
        guard let peer, !trustedProxies.isEmpty, trustedProxies.contains(peer) else { return false }
        return headers.listMembers(for: HeaderName.xForwardedProto).first?.lowercased() == "https"
    }
}

/// A bounded memo of `Host` values and whether they are served, shared by every copy of a
/// policy (a reference: copies of the value see the same memo). At most ``capacity`` values: a
/// client making up hosts empties it, and pays a parse per request, as with no memo.
final class HostVerdicts: Sendable {
    static let capacity = 256
    private let known = Mutex<[String: Bool]>([:])

    func verdict(for host: String) -> Bool? { known.withLock { $0[host] } }

    func remember(_ admitted: Bool, for host: String) {
        known.withLock { known in
            if known.count >= Self.capacity { known.removeAll(keepingCapacity: true) }
            known[host] = admitted
        }
    }
}
