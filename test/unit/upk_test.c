/*
 * upk_test.c - unpacking what a hostile or broken peer sends: random
 * message bodies (Raw, and PvmDataDefault through pvm_upkmesg) read with
 * random sequences of pvm_upk* calls.  A model of each encoding's sizes
 * says which calls must succeed and how far each moves the read
 * position; a call that runs past the end must fail with PvmNoData and
 * read nothing.  Random bytes fed to pvm_upkmesg itself must give a
 * buffer or an error code.  Needs no pvmd; prints TAP.
 *
 * The same input function is a libFuzzer target: built with
 *   clang -DUPK_FUZZER -fsanitize=fuzzer,address,undefined -Iinclude \
 *       test/unit/upk_test.c libpvm3.a -ltirpc
 * it explores inputs by coverage instead of the fixed random ones below.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"
#include "tap.h"

#define SIG_RAW 0x00408c41 /* pvm_getminfo's enc of this host's Raw */
#define SIG_XDR 0x10000000 /* ... of PvmDataDefault */
#define NTYPE 12           /* the 11 array types and strings */

static char out[1 << 16];
static char bad[200]; /* what the first failed input did */

/* Bytes one item of type t takes in the body (Raw: this host's sizes;
 * Default: XDR, where long and ulong are 4 bytes as in PVM 3.4.6). */
static size_t item_size(int t, int xdr)
{
	static const size_t raw[] = {1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16};
	static const size_t x[] = {1, 4, 4, 4, 4, 4, 4, 4, 8, 8, 16};
	return xdr ? x[t] : raw[t];
}

static int upk(int t, int cnt, int st)
{
	switch (t) {
	case 0: return pvm_upkbyte(out, cnt, st);
	case 1: return pvm_upkshort((short *)(void *)out, cnt, st);
	case 2: return pvm_upkushort((unsigned short *)(void *)out, cnt, st);
	case 3: return pvm_upkint((int *)(void *)out, cnt, st);
	case 4: return pvm_upkuint((unsigned *)(void *)out, cnt, st);
	case 5: return pvm_upklong((long *)(void *)out, cnt, st);
	case 6: return pvm_upkulong((unsigned long *)(void *)out, cnt, st);
	case 7: return pvm_upkfloat((float *)(void *)out, cnt, st);
	case 8: return pvm_upkdouble((double *)(void *)out, cnt, st);
	case 9: return pvm_upkcplx((float *)(void *)out, cnt, st);
	case 10: return pvm_upkdcplx((double *)(void *)out, cnt, st);
	default: return pvm_upkstr(out);
	}
}

/* Bytes the model says a call takes at body offset pos (0: it fails). */
static size_t model(const uint8_t *body, size_t len, size_t pos, int t,
		    int cnt, int xdr)
{
	size_t rem = len - pos, n = (size_t)cnt;
	if (t == NTYPE - 1) { /* string: an int count, then the bytes */
		if (rem < 4)
			return 0;
		uint32_t u;
		memcpy(&u, body + pos, 4);
		if (xdr)
			u = __builtin_bswap32(u);
		if ((int32_t)u < 0)
			return 0;
		n = u;
		t = 0;
		rem -= 4;
		size_t k = model(body, len, pos + 4, 0, (int)n, xdr);
		return n == 0 ? 4 : k ? 4 + k : 0;
	}
	if (n == 0)
		return 0;
	size_t sz = n * item_size(t, xdr);
	if (xdr && t == 0) {
		sz = (n + 3) & ~(size_t)3;
		if (sz > rem && n <= rem)
			sz = rem; /* a final byte array without its padding */
	}
	return sz <= rem ? sz : 0;
}

/* One input: d[0] picks the mode, d[1] the number of calls, then three
 * bytes per call (type, count, stride), then the body.  Returns 0, or 1
 * with bad[] saying what went wrong. */
static int one(const uint8_t *d, size_t n)
{
	if (n < 2 || n > (1 << 15))
		return 0;
	int mode = d[0] % 3, ncall = d[1] % 32, fail = 0;
	d += 2;
	n -= 2;
	size_t opn = (size_t)ncall * 3 <= n ? (size_t)ncall * 3 : n - n % 3;
	const uint8_t *op = d, *body = d + opn;
	size_t blen = n - opn;

	int outer = pvm_mkbuf(PvmDataRaw);
	pvm_setsbuf(outer);
	if (mode == 2) { /* the body as pvm_pkmesg's output, random */
		if (blen)
			pvm_pkbyte((char *)(uintptr_t)body, (int)blen, 1);
		pvm_setrbuf(outer);
		int cc = pvm_upkmesg();
		if (cc > 0)
			pvm_freebuf(cc);
		else if (cc != PvmNoData && cc != PvmBadMsg && cc != PvmNoMem) {
			snprintf(bad, sizeof bad, "upkmesg of %zu random bytes: %d", blen, cc);
			fail = 1;
		}
		pvm_setrbuf(0);
		pvm_freebuf(outer);
		return fail;
	}
	int xdr = mode == 1;
	int h[9] = {(int)blen, 0, 1, 0, xdr ? SIG_XDR : SIG_RAW, 0, 0x40001, 0x40002, (int)blen};
	pvm_pkint(h, 9, 1);
	if (blen)
		pvm_pkbyte((char *)(uintptr_t)body, (int)blen, 1);
	pvm_setrbuf(outer);
	int rb = pvm_upkmesg();
	if (rb <= 0) {
		snprintf(bad, sizeof bad, "upkmesg of a well-formed %zu-byte %s message: %d",
			 blen, xdr ? "Default" : "Raw", rb);
		pvm_freebuf(outer);
		return 1;
	}
	pvm_setrbuf(rb);
	size_t pos = 0;
	for (size_t i = 0; i + 3 <= opn && !fail; i += 3) {
		int t = op[i] % NTYPE, cnt = op[i + 1], st = op[i + 2] % 3 + 1;
		size_t take = model(body, blen, pos, t, cnt, xdr);
		int cc = upk(t, cnt, st), want = take || (cnt == 0 && t != NTYPE - 1) ? 0 : PvmNoData;
		if (cc != want) {
			snprintf(bad, sizeof bad,
				 "%s body of %zu bytes at %zu: type %d x %d: %d, expected %d",
				 xdr ? "Default" : "Raw", blen, pos, t, cnt, cc, want);
			fail = 1;
		}
		pos += take;
	}
	/* what is left must be exactly where the model says */
	if (!fail && pos < blen && pvm_upkbyte(out, (int)(blen - pos), 1) != 0) {
		snprintf(bad, sizeof bad, "the last %zu bytes were not there", blen - pos);
		fail = 1;
	}
	if (!fail && pvm_upkbyte(out, 1, 1) != PvmNoData) {
		snprintf(bad, sizeof bad, "a byte past the end of %zu", blen);
		fail = 1;
	}
	pvm_setrbuf(0);
	pvm_freebuf(rb);
	pvm_freebuf(outer);
	return fail;
}

#ifdef UPK_FUZZER
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static int init;
	if (!init++)
		pvm_setopt(PvmAutoErr, 0);
	if (one(d, n))
		__builtin_trap();
	return 0;
}
#else
static uint64_t seed = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (uint32_t)seed;
}

int main(void)
{
	static uint8_t in[4096];
	pvm_setopt(PvmAutoErr, 0);
	for (int mode = 0; mode < 3; mode++) {
		int fails = 0;
		for (int k = 0; k < 20000; k++) {
			size_t n = 2 + rnd() % 1500;
			for (size_t i = 0; i < n; i++)
				in[i] = (uint8_t)rnd();
			in[0] = (uint8_t)mode;
			/* mostly small counts and lengths, so calls land both
			 * inside and past the end of the body */
			for (size_t i = 2; i + 3 <= n && i < 2 + 96; i += 3)
				if (rnd() % 4)
					in[i + 1] %= 16;
			for (size_t i = 2 + 96; i + 4 <= n; i += 4)
				if (rnd() % 8 == 0) {
					uint32_t v = rnd() % 64;
					if (mode == 1)
						v = __builtin_bswap32(v);
					memcpy(in + i, &v, 4);
				}
			if (one(in, n) && !fails++)
				printf("# %s\n", bad);
		}
		static const char *what[] = {"Raw bodies", "Default bodies",
					     "random pkmesg streams"};
		ok(fails == 0, "20000 %s read with random pvm_upk* calls as the model says (%d failed)",
		   what[mode], fails);
	}
	return tap_done();
}
#endif
