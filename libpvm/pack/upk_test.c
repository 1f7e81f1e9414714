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
 *       libpvm/pack/upk_test.c libpvm3.a -ltirpc
 * it explores inputs by coverage instead of the fixed random ones below.
 */
#include <stdio.h>
#include <string.h>

#include "test_types.h"

#define T_STR T_N /* a call of pvm_upkstr, after the array types */

static char out[1 << 16];
static char bad[200]; /* what the first failed input did */

/* Bytes the model says a call takes at body offset pos (0: it fails). */
static size_t model(const uint8_t *body, size_t len, size_t pos, int t, int cnt,
		    int xdr)
{
	size_t rem = len - pos, n = (size_t)cnt;
	if (t == T_STR) { /* an int count, then the bytes */
		if (rem < 4)
			return 0;
		uint32_t u;
		const uint8_t *b = body + pos;
		if (xdr) /* big-endian on the wire */
			u = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
			    (uint32_t)b[2] << 8 | b[3];
		else /* Raw: this host's order */
			memcpy(&u, b, 4);
		if ((int32_t)u < 0)
			return 0;
		n = u;
		size_t k = model(body, len, pos + 4, T_BYTE, (int)n, xdr);
		return n == 0 ? 4 : k ? 4 + k : 0;
	}
	if (n == 0)
		return 0;
	size_t sz = n * (xdr ? xsize[t] : tsize[t]);
	if (xdr && t == T_BYTE) {
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
			snprintf(bad, sizeof bad,
				 "upkmesg of %zu random bytes: %d", blen, cc);
			fail = 1;
		}
		pvm_setrbuf(0);
		pvm_freebuf(outer);
		return fail;
	}
	int xdr = mode == 1;
	int h[9] = {(int)blen,
		    0,
		    1,
		    0,
		    enc_sig(xdr ? PvmDataDefault : PvmDataRaw),
		    0,
		    0x40001,
		    0x40002,
		    (int)blen};
	pvm_pkint(h, 9, 1);
	if (blen)
		pvm_pkbyte((char *)(uintptr_t)body, (int)blen, 1);
	pvm_setrbuf(outer);
	int rb = pvm_upkmesg();
	if (rb <= 0) {
		snprintf(bad, sizeof bad,
			 "upkmesg of a well-formed %zu-byte %s message: %d",
			 blen, xdr ? "Default" : "Raw", rb);
		pvm_freebuf(outer);
		return 1;
	}
	pvm_setrbuf(rb);
	size_t pos = 0;
	for (size_t i = 0; i + 3 <= opn && !fail; i += 3) {
		int t = op[i] % (T_STR + 1), cnt = op[i + 1],
		    st = op[i + 2] % 3 + 1;
		size_t take = model(body, blen, pos, t, cnt, xdr);
		int cc = t == T_STR ? pvm_upkstr(out) : upk(t, out, cnt, st);
		int want = take || (cnt == 0 && t != T_STR) ? 0 : PvmNoData;
		if (cc != want) {
			snprintf(
				bad, sizeof bad,
				"%s body of %zu bytes at %zu: type %d x %d: %d, expected %d",
				xdr ? "Default" : "Raw", blen, pos, t, cnt, cc,
				want);
			fail = 1;
		}
		pos += take;
	}
	/* what is left must be exactly where the model says */
	if (!fail && pos < blen &&
	    pvm_upkbyte(out, (int)(blen - pos), 1) != 0) {
		snprintf(bad, sizeof bad, "the last %zu bytes were not there",
			 blen - pos);
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
		ok(fails == 0,
		   "20000 %s read with random pvm_upk* calls as the model says (%d failed)",
		   what[mode], fails);
	}
	return tap_done();
}
#endif
