#ifndef RECEIPTDESK_COPENSSL_SHIM_H
#define RECEIPTDESK_COPENSSL_SHIM_H
/* Swift cannot see OpenSSL's macros; these static inline wrappers stand in for them. */
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1
#include <string.h>
#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/ocsp.h>

static inline STACK_OF(X509) *rd_sk_x509_new(void) { return sk_X509_new_null(); }
static inline int rd_sk_x509_push(STACK_OF(X509) *s, X509 *c) { return sk_X509_push(s, c); }
static inline int rd_sk_x509_num(const STACK_OF(X509) *s) { return sk_X509_num(s); }
static inline X509 *rd_sk_x509_value(const STACK_OF(X509) *s, int i) { return sk_X509_value(s, i); }
static inline void rd_sk_x509_free(STACK_OF(X509) *s) { sk_X509_free(s); }
static inline void rd_sk_x509_pop_free(STACK_OF(X509) *s) { sk_X509_pop_free(s, X509_free); }
static inline void rd_openssl_free(void *p) { OPENSSL_free(p); }

/* Generates a P-256 key (EVP_EC_gen is a macro over a variadic call). */
static inline EVP_PKEY *rd_ec_p256_generate(void) { return EVP_EC_gen("P-256"); }
/* Generates an RSA key of the given size (EVP_RSA_gen is a macro over a variadic call). */
static inline EVP_PKEY *rd_rsa_generate(unsigned int bits) { return EVP_RSA_gen(bits); }

/* The last OpenSSL error as text, clearing the queue; buf receives a NUL-terminated string. */
static inline void rd_last_error(char *buf, size_t len) {
    unsigned long e = ERR_get_error();
    if (e == 0) { if (len > 0) buf[0] = 0; }
    else { ERR_error_string_n(e, buf, len); }
    ERR_clear_error();
}
/* The first OCSP responder URL of a certificate's Authority Information Access extension, copied
   into buf (NUL-terminated); returns its length, or -1 when the certificate names none or buf is too small. */
static inline int rd_x509_first_ocsp_url(X509 *x, char *buf, size_t len) {
    STACK_OF(OPENSSL_STRING) *urls = X509_get1_ocsp(x);
    int result = -1;
    if (urls != NULL && sk_OPENSSL_STRING_num(urls) > 0) {
        const char *url = sk_OPENSSL_STRING_value(urls, 0);
        size_t n = url != NULL ? strlen(url) : 0;
        if (url != NULL && n + 1 <= len) { memcpy(buf, url, n + 1); result = (int)n; }
    }
    X509_email_free(urls);
    return result;
}
/* OCSP_CERTID for (cert, issuer) with SHA-1, as responders expect. */
static inline OCSP_CERTID *rd_ocsp_cert_to_id(X509 *cert, X509 *issuer) { return OCSP_cert_to_id(NULL, cert, issuer); }
#endif
