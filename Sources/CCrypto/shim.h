// OpenSSL's libcrypto (Debian's libssl-dev): SHA-256, HMAC, a CSPRNG and a constant-time
// comparison for access tokens. Only these headers; NavPrefs does no TLS itself.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
