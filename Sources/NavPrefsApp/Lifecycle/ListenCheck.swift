import MicroHTTPServer

/// Whether the service could listen at `--host` and `--port` now, and if not, why, in words that
/// say what to do. Checked first at start, before the store creates or opens anything (a port in
/// use must not leave a new database file behind), and by `navprefs check`.
enum ListenCheck {
    /// Why the service cannot listen.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// `nil` when a socket can be bound there now (always for port 0: the system picks one).
    static func refusal(host: String, port: Int) -> Refusal? {
        guard port != 0 else { return nil }
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let outcome: ListenProbe.Outcome
        do {
            outcome = try ListenProbe.bind(host: host, port: port)
        } catch {
            return Refusal(description: "--host \(host) is neither an address nor a name that resolves")
        }
        switch outcome {
        case .free:
            return nil
        case .inUse:
            return Refusal(description: "\(address) is in use: another program, or another navprefs, listens there; "
                + "stop it, or choose another port with --port (or PORT)")
        case .notLocal:
            return Refusal(description: "\(address): \(host) is not an address of this machine; choose one it has with --host (or HOST)")
        case .needsPrivilege:
            return Refusal(description: "\(address): ports below 1024 need root or CAP_NET_BIND_SERVICE; choose another port with --port (or PORT)")
        case .failed(let reason):
            return Refusal(description: "cannot listen on \(address): \(reason)")
        }
    }
}

/// The first part to start when the service listens: the address checked before the store
/// opens (or creates) its database.
struct ListenCheckPart: ServicePart {
    let host: String
    let port: Int
    var name: String { "listen check" }
    func start() async throws {
        if let refusal = ListenCheck.refusal(host: host, port: port) { throw refusal }
    }
    func stop() async {}
}
