/*
 * sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the
 * challenge-response that authenticates pvmds and tasks of one virtual
 * machine (auth.h, docs/hosts.md "Authentication").
 *
 * Incremental use: sha256_init, any number of sha256_update, sha256_final.
 */
#ifndef PVM_SHA256_H
#define PVM_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32

/* h: the chaining state; n: bytes hashed so far; buf/fill: the partial
 * 64-byte block not yet compressed. */
struct sha256 {
	uint32_t h[8];
	uint64_t n;
	uint8_t buf[64];
	size_t fill;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *p, size_t n);
/* Writes the digest; the state must be initialised again before reuse. */
void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN]);

/* out = HMAC-SHA256(key, msg); any key length (longer than a block is
 * hashed first, as RFC 2104 says). */
void hmac_sha256(const void *key, size_t klen, const void *msg, size_t mlen,
		 uint8_t out[SHA256_LEN]);

/* The same, incrementally (for a message made of several pieces):
 * hmac_sha256_init, any number of hmac_sha256_update, hmac_sha256_final
 * (which wipes the state). */
struct hmac_sha256 {
	struct sha256 inner;
	uint8_t opad[64];	/* key ^ 0x5c, for the outer hash */
};
void hmac_sha256_init(struct hmac_sha256 *h, const void *key, size_t klen);
void hmac_sha256_update(struct hmac_sha256 *h, const void *p, size_t n);
void hmac_sha256_final(struct hmac_sha256 *h, uint8_t out[SHA256_LEN]);

#endif /* PVM_SHA256_H */
