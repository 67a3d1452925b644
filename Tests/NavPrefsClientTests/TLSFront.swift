import Foundation
import Glibc
import HTTPTestClient
import Testing

/// nginx terminating TLS in front of a server, as a deployment has it (docs/access-and-security.md, "Security"), with a
/// certificate made for the test: what the client's https path is measured against.
final class TLSFront: Sendable {
    let port: Int
    /// The certificate to trust (`SSL_CERT_FILE` for the client process).
    let certificate: String
    private let process: ChildProcess

    init(upstream: Int, scratch: Scratch) async throws {
        let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let nginx else { throw TestClientError.malformed("nginx is not installed (scripts/test installs it for the client step)") }
        let directory = scratch.path("nginx")
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        certificate = directory + "/cert.pem"
        let key = directory + "/key.pem"
        let made = try runToEnd("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                                                     "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                                environment: ProcessInfo.processInfo.environment)
        try #require(made.status == 0, "openssl req failed")
        port = try Self.freePort()
        let configuration = """
            daemon off;
            pid \(directory)/nginx.pid;
            error_log \(directory)/logs/error.log warn;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(certificate);
                    ssl_certificate_key \(key);
                    location / {
                        proxy_pass http://127.0.0.1:\(upstream);
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_buffering off;
                        proxy_read_timeout 1h;
                    }
                }
            }
            """
        try configuration.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        process = try ChildProcess(nginx, ["-p", directory, "-c", directory + "/nginx.conf"], environment: ProcessInfo.processInfo.environment,
                                   output: 2, errors: 2)
        for _ in 0..<500 {
            if Self.accepts(port) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestClientError.malformed("nginx did not listen on \(port)")
    }

    func stop() {
        process.signal(SIGTERM)
        _ = process.wait()
    }

    deinit { process.signal(SIGKILL) }

    /// A port nothing listens on right now.
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
