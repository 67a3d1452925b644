// OpenSSL for the Swift client's own HTTP/1.1 reader on Linux (https event streams and
// requests), imported by NavPrefsClient only, and only on Linux.
#ifndef CCLIENTTLS_SHIM_H
#define CCLIENTTLS_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

// SSL_set_tlsext_host_name is a macro, which Swift cannot call.
static inline int cclienttls_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// SSL_CTX_set_min_proto_version is a macro too.
static inline int cclienttls_require_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

#endif
