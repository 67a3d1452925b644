#if os(Linux)
    import CClientTLS
    import Foundation
    import Glibc

    /// OpenSSL's client configuration, one per ``NavPrefsClient``: the system's certificate
    /// authorities (`SSL_CERT_FILE` and `SSL_CERT_DIR` override them, as for every OpenSSL
    /// program), peer verification on, TLS 1.2 at least.
    ///
    /// Safety (`@unchecked Sendable`): an `SSL_CTX` is only read once set up, which OpenSSL
    /// documents as safe from any thread.
    final class TLSContext: @unchecked Sendable {
        fileprivate let context: OpaquePointer

        init() throws(NavPrefsError) {
            guard let context = SSL_CTX_new(TLS_client_method()) else { throw .transport("OpenSSL: \(TLSSession.errorText())") }
            _ = cclienttls_require_tls12(context)
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                SSL_CTX_free(context)
                throw .transport("OpenSSL found no certificate authorities: \(TLSSession.errorText())")
            }
            self.context = context
        }

        deinit { SSL_CTX_free(context) }
    }

    /// One TLS connection over a connected socket, verified against the host name (or address).
    ///
    /// Safety (`@unchecked Sendable`): used by the one thread that owns its ``SocketChannel``.
    final class TLSSession: @unchecked Sendable {
        private let session: OpaquePointer

        init(descriptor: Int32, host: String, context: TLSContext) throws(NavPrefsError) {
            guard let session = SSL_new(context.context) else { throw .transport("OpenSSL: \(Self.errorText())") }
            self.session = session
            _ = SSL_set_fd(session, descriptor)
            if Self.isAddress(host) {
                _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(session), host)
            } else {
                _ = cclienttls_set_server_name(session, host)
                _ = SSL_set1_host(session, host)
            }
            guard SSL_connect(session) == 1 else {
                let verify = SSL_get_verify_result(session)
                let reason = verify == X509_V_OK ? Self.errorText() : String(cString: X509_verify_cert_error_string(verify))
                throw .transport("TLS with \(host) failed: \(reason)")
            }
        }

        deinit { SSL_free(session) }

        /// Bytes read into `buffer`; 0 at the end of the connection, -1 when it broke.
        func read(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
            let count = SSL_read(session, buffer.baseAddress, Int32(clamping: buffer.count))
            if count > 0 { return Int(count) }
            return SSL_get_error(session, count) == SSL_ERROR_ZERO_RETURN ? 0 : -1
        }

        /// Bytes written from `buffer`; -1 when the connection broke.
        func write(_ buffer: UnsafeRawBufferPointer) -> Int {
            let count = SSL_write(session, buffer.baseAddress, Int32(clamping: buffer.count))
            return count > 0 ? Int(count) : -1
        }

        static func errorText() -> String {
            var buffer = [CChar](repeating: 0, count: 256)
            let code = ERR_get_error()
            guard code != 0 else { return "unknown error" }
            ERR_error_string_n(code, &buffer, buffer.count)
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        private static func isAddress(_ host: String) -> Bool {
            var v4 = in_addr(), v6 = in6_addr()
            return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
        }
    }
#endif
