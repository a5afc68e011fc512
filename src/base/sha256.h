/*
 * sha256.h — SHA-256 (FIPS 180-4) of a byte string, and its base64 form:
 * the HTML page's Content-Security-Policy names the hash of its own inline
 * script and style ('sha256-BASE64'), computed when the page is written.
 *
 *   char b64[SHA256_B64_LEN + 1];
 *   sha256_b64(text, strlen(text), b64);
 *
 * Layer: base. Never prints.
 */
#ifndef GF_SHA256_H
#define GF_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_B64_LEN 44

/* The 32-byte digest of s[0..n). */
void sha256_digest(const void *s, size_t n, uint8_t out[32]);
/* The digest in standard base64 with padding, NUL-terminated. */
void sha256_b64(const void *s, size_t n, char out[SHA256_B64_LEN + 1]);

#endif
