/*
 * sha256.c - SHA-256 (FIPS 180-4 section 6.2) and HMAC-SHA256 (RFC 2104).
 * Written for clarity, not speed: it hashes a few hundred bytes per link.
 */
#include "sha256.h"

#include <string.h>

/* The first 32 bits of the fractional parts of the cube roots of the
 * first 64 primes (FIPS 180-4 4.2.2). */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

/* One 64-byte block into the state (FIPS 180-4 6.2.2). */
static void compress(uint32_t h[8], const uint8_t blk[64])
{
	uint32_t w[64], a, b, c, d, e, f, g, k, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)blk[4 * i] << 24 | (uint32_t)blk[4 * i + 1] << 16 |
		       (uint32_t)blk[4 * i + 2] << 8 | blk[4 * i + 3];
	for (; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0], b = h[1], c = h[2], d = h[3];
	e = h[4], f = h[5], g = h[6], k = h[7];
	for (i = 0; i < 64; i++) {
		t1 = k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) +
		     K[i] + w[i];
		t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		k = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
	h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
				       0xa54ff53a, 0x510e527f, 0x9b05688c,
				       0x1f83d9ab, 0x5be0cd19};
	memcpy(s->h, h0, sizeof h0);
	s->n = 0;
	s->fill = 0;
}

void sha256_update(struct sha256 *s, const void *p, size_t n)
{
	const uint8_t *q = p;

	s->n += n;
	while (n > 0) {
		size_t take = sizeof s->buf - s->fill;
		if (take > n)
			take = n;
		memcpy(s->buf + s->fill, q, take);
		s->fill += take;
		q += take;
		n -= take;
		if (s->fill == sizeof s->buf) {
			compress(s->h, s->buf);
			s->fill = 0;
		}
	}
}

void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN])
{
	uint64_t bits = s->n * 8;
	int i;

	/* Padding: 0x80, zeros up to 56 mod 64, the length in bits (big
	 * endian, 64 bits). */
	s->buf[s->fill++] = 0x80;
	if (s->fill > 56) {
		memset(s->buf + s->fill, 0, sizeof s->buf - s->fill);
		compress(s->h, s->buf);
		s->fill = 0;
	}
	memset(s->buf + s->fill, 0, 56 - s->fill);
	for (i = 0; i < 8; i++)
		s->buf[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	compress(s->h, s->buf);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
	explicit_bzero(s, sizeof *s);
}

void hmac_sha256_init(struct hmac_sha256 *h, const void *key, size_t klen)
{
	uint8_t k[64], ipad[64];
	size_t i;

	memset(k, 0, sizeof k);
	if (klen > sizeof k) {
		sha256_init(&h->inner);
		sha256_update(&h->inner, key, klen);
		sha256_final(&h->inner, k);
	} else if (klen > 0) {
		memcpy(k, key, klen);
	}
	for (i = 0; i < sizeof k; i++) {
		ipad[i] = k[i] ^ 0x36;
		h->opad[i] = k[i] ^ 0x5c;
	}
	sha256_init(&h->inner);
	sha256_update(&h->inner, ipad, sizeof ipad);
	/* The key material does not linger on the stack. */
	explicit_bzero(k, sizeof k);
	explicit_bzero(ipad, sizeof ipad);
}

void hmac_sha256_update(struct hmac_sha256 *h, const void *p, size_t n)
{
	sha256_update(&h->inner, p, n);
}

void hmac_sha256_final(struct hmac_sha256 *h, uint8_t out[SHA256_LEN])
{
	uint8_t ih[SHA256_LEN];
	struct sha256 outer;

	sha256_final(&h->inner, ih);
	sha256_init(&outer);
	sha256_update(&outer, h->opad, sizeof h->opad);
	sha256_update(&outer, ih, sizeof ih);
	sha256_final(&outer, out);
	explicit_bzero(ih, sizeof ih);
	explicit_bzero(h, sizeof *h);
}

void hmac_sha256(const void *key, size_t klen, const void *msg, size_t mlen,
		 uint8_t out[SHA256_LEN])
{
	struct hmac_sha256 h;

	hmac_sha256_init(&h, key, klen);
	hmac_sha256_update(&h, msg, mlen);
	hmac_sha256_final(&h, out);
}
