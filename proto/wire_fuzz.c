/*
 * wire_fuzz.c - libFuzzer target: the frame header codec and the payload
 * reader, the first code every byte from a task or another pvmd meets.
 *
 * Input: a 40-byte header, then a program for the reader (one byte per
 * read: which read and, for counts, the item size), then the payload it
 * reads.  Besides what the sanitizers catch it checks the codec's own
 * promises: a header that decodes encodes back to the same 40 bytes'
 * meaning; a reader never hands out memory past the payload; once in
 * error it stays there and yields nothing.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/wire.h"

#define CHECK(x)                                                               \
	do {                                                                   \
		if (!(x))                                                      \
			__builtin_trap();                                      \
	} while (0)

static void header(const uint8_t *in)
{
	struct wire_hdr h, h2;
	uint8_t out[WIRE_HDR_SIZE];
	for (int k = 0; k < 2; k++) {
		uint32_t maxlen = k ? WIRE_MAX_FRAG : 4096;
		if (wire_hdr_decode(in, &h, maxlen) < 0)
			continue;
		CHECK(h.len <= maxlen);
		CHECK(!(h.flags & ~WIRE_F_KNOWN));
		wire_hdr_encode(&h, out);
		CHECK(wire_hdr_decode(out, &h2, maxlen) == 0);
		CHECK(!memcmp(&h, &h2, sizeof h));
	}
}

static void reader(const uint8_t *prog, size_t nprog, const uint8_t *p,
		   size_t n)
{
	struct wire_rd r;
	wire_rd_init(&r, p, n);
	for (size_t i = 0; i < nprog; i++) {
		size_t before = r.left;
		int was_err = r.err;
		const uint8_t *at = r.p;
		switch (prog[i] & 7) {
		case 0:
			(void)wire_rd_i32(&r);
			break;
		case 1:
			(void)wire_rd_u64(&r);
			break;
		case 2: {
			size_t len = 0;
			const uint8_t *b = wire_rd_bytes(&r, &len);
			if (b) {
				CHECK(b >= p && b + len <= p + n);
				volatile uint8_t sum = 0;
				for (size_t j = 0; j < len; j++)
					sum ^= b[j];
				(void)sum;
			}
			break;
		}
		case 3: {
			char *s = wire_rd_strdup(&r);
			if (s) {
				CHECK(strlen(s) + 4 <= before);
				free(s);
			}
			break;
		}
		case 4: {
			char s[64];
			if (wire_rd_xdr_str(&r, s, 1 + (prog[i] >> 3)) == 0)
				CHECK(strlen(s) < 1 + (size_t)(prog[i] >> 3));
			break;
		}
		default: {
			int32_t c = wire_rd_count(&r, 1 + (prog[i] >> 3));
			CHECK(c >= 0);
			if (!r.err)
				CHECK((size_t)c * (1 + (prog[i] >> 3)) <=
				      r.left);
			break;
		}
		}
		CHECK(r.left <= before);
		if (!r.err)
			CHECK(r.p == at + (before - r.left));
		if (was_err)
			CHECK(r.err && r.left == before);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n < WIRE_HDR_SIZE + 1)
		return 0;
	header(d);
	d += WIRE_HDR_SIZE;
	n -= WIRE_HDR_SIZE;
	size_t nprog = d[0] % 32;
	if (nprog > n - 1)
		nprog = n - 1;
	reader(d + 1, nprog, d + 1 + nprog, n - 1 - nprog);
	return 0;
}
