/*
 * pt_arch.c - what a task runs on, and PvmDataDefault between unlike
 * hosts (hetero.bats, docs/hetero.md).
 *
 *   pt_arch [-d] [-e default|packf|raw|inplace|psend] WHERE...
 *                              WHERE: a host name, or arch=ARCH
 *
 * Spawns a copy of itself on each host named (PvmTaskHost), or on a host
 * of architecture ARCH (PvmTaskArch): its own binary there, from that
 * host's spawn path.  -d: the messages take the direct route
 * (PvmRouteDirect, in both tasks).  -e: how the data travels, both ways
 * (default PvmDataDefault): in PvmDataDefault by one pvm_packf and
 * pvm_unpackf, packed in PvmDataRaw or PvmDataInPlace (each
 * side packs its own format; the receiver converts), or one array per
 * pvm_psend (and a large array of longs), received with pvm_precv by its
 * type.  Raw, InPlace and psend from an LP64 first task also carry longs
 * of 2^40 and -2^40 (Raw and InPlace an unsigned long past 2^63 too): a
 * copy with a 32-bit long must get PvmOverflow for them, one with a 64-bit
 * long the values; in PvmDataDefault the first task checks that packing
 * such a long gives PvmOverflow.  Each copy reports what it runs on,
 * measured by itself (byte order, sizeof(long), and the ELF machine of its
 * own program, /proc/self/exe, which qemu-user answers with the program it
 * runs, not itself), then receives a message of every type with edge
 * values, checks every bit, and sends back what it unpacked, packed again;
 * the first task checks that too (and each, that pvm_getminfo's enc is
 * XDR's signature or the sender's own data signature).
 * Prints one line per host: HOST: ORDER long=N elf=MACHINE there=ok back=ok
 * ("there": the copy's check; "back": the first task's).  Then one
 * pvm_mcast of the same data to every copy (psend: in PvmDataDefault),
 * each copy checking it: "mcast to N: ok", or the hosts and what failed.
 * Exits 0 only if every check passed.  Spawned, its arguments are -copy, the
 * encoding, 0 or 1 (the longs past 32 bits follow), the first task's data
 * signature in hex, and -d or nothing.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pvm3.h>

#define N	   16
#define TAG_REPORT 1
#define TAG_DATA   2
#define TAG_BACK   3
#define TAG_STATUS 4
#define TAG_MCAST  5
#define TAG_MSTAT  6
#define MAXH	   16
#define WAIT_S	   60

struct data {
	char bytes[256];
	short shorts[N];
	unsigned short ushorts[N];
	int ints[N];
	unsigned uints[N];
	long longs[N]; /* within XDR's 32 bits */
	unsigned long ulongs[N];
	float floats[N];
	double doubles[N];
	float cplx[2 * N];
	double dcplx[2 * N];
	char str[64];
};

static void fill(struct data *d)
{
	static const short s[] = {SHRT_MIN, SHRT_MAX, -1, 0, 1, 0x1234};
	static const int i[] = {INT_MIN, INT_MAX, -1, 0, 1, 0x12345678};
	static const long l[] = {INT32_MIN, INT32_MAX, -1, 0, 1, -123456789};
	const float f[] = {FLT_MAX,	  -FLT_MAX, FLT_MIN,
			   -FLT_TRUE_MIN, INFINITY, -INFINITY,
			   NAN,		  -0.0f,    1.0f / 3};
	const double g[] = {DBL_MAX,	   -DBL_MAX, DBL_MIN,
			    -DBL_TRUE_MIN, INFINITY, -INFINITY,
			    NAN,	   -0.0,     1.0 / 3};
	memset(d, 0, sizeof *d);
	for (int k = 0; k < 256; k++)
		d->bytes[k] = (char)k;
	for (int k = 0; k < N; k++) {
		d->shorts[k] = s[k % 6];
		d->ushorts[k] = (unsigned short)(USHRT_MAX - k);
		d->ints[k] = i[k % 6];
		d->uints[k] = UINT_MAX - (unsigned)k;
		d->longs[k] = l[k % 6];
		d->ulongs[k] = 0xffffffffUL - (unsigned long)k;
		d->floats[k] = f[k % 9];
		d->doubles[k] = g[k % 9];
	}
	for (int k = 0; k < 2 * N; k++) {
		d->cplx[k] = f[(k + 3) % 9];
		d->dcplx[k] = g[(k + 5) % 9];
	}
	strcpy(d->str, "heterogeneous: every type, every bit");
}

static int enc = PvmDataDefault, use_psend, use_packf;
/* values only an LP64 long holds (0 where long has 32 bits) */
#define TWO40 ((1ULL << 40) & (unsigned long)-1)
static const long big_longs[2] = {(long)TWO40, (long)(0 - TWO40)};
static const unsigned long big_ulong =
	(unsigned long)(0xfedcba9876543210ULL & (unsigned long)-1);

/* InPlace packs no strings (man 3 pvm_pack): the text goes as bytes. */
static int pack(const struct data *d)
{
	if (use_packf)
		return pvm_packf(
			       "%+ %256c %*hd %*hud %*d %*ud %*ld %*lud %*f %*lf "
			       "%*x %*lx %s",
			       PvmDataDefault, d->bytes, N, d->shorts, N,
			       d->ushorts, N, d->ints, N, d->uints, N, d->longs,
			       N, d->ulongs, N, d->floats, N, d->doubles, N,
			       d->cplx, N, d->dcplx, d->str) < 0;
	return pvm_pkbyte((char *)d->bytes, 256, 1) ||
	       pvm_pkshort((short *)d->shorts, N, 1) ||
	       pvm_pkushort((unsigned short *)d->ushorts, N, 1) ||
	       pvm_pkint((int *)d->ints, N, 1) ||
	       pvm_pkuint((unsigned *)d->uints, N, 1) ||
	       pvm_pklong((long *)d->longs, N, 1) ||
	       pvm_pkulong((unsigned long *)d->ulongs, N, 1) ||
	       pvm_pkfloat((float *)d->floats, N, 1) ||
	       pvm_pkdouble((double *)d->doubles, N, 1) ||
	       pvm_pkcplx((float *)d->cplx, N, 1) ||
	       pvm_pkdcplx((double *)d->dcplx, N, 1) ||
	       (enc == PvmDataInPlace ? pvm_pkbyte((char *)d->str, 64, 1)
				      : pvm_pkstr((char *)d->str));
}

static int unpack(struct data *d)
{
	memset(d, 0, sizeof *d);
	if (use_packf)
		return pvm_unpackf(
			       "%256c %*hd %*hud %*d %*ud %*ld %*lud %*f %*lf "
			       "%*x %*lx %s",
			       d->bytes, N, d->shorts, N, d->ushorts, N,
			       d->ints, N, d->uints, N, d->longs, N, d->ulongs,
			       N, d->floats, N, d->doubles, N, d->cplx, N,
			       d->dcplx, d->str) < 0;
	return pvm_upkbyte(d->bytes, 256, 1) || pvm_upkshort(d->shorts, N, 1) ||
	       pvm_upkushort(d->ushorts, N, 1) || pvm_upkint(d->ints, N, 1) ||
	       pvm_upkuint(d->uints, N, 1) || pvm_upklong(d->longs, N, 1) ||
	       pvm_upkulong(d->ulongs, N, 1) || pvm_upkfloat(d->floats, N, 1) ||
	       pvm_upkdouble(d->doubles, N, 1) || pvm_upkcplx(d->cplx, N, 1) ||
	       pvm_upkdcplx(d->dcplx, N, 1) ||
	       (enc == PvmDataInPlace ? pvm_upkbyte(d->str, 64, 1)
				      : pvm_upkstr(d->str));
}

/* The arrays that travel by pvm_psend, one message each. */
#define PSENDS(X)                                                              \
	X(bytes, 256, PVM_BYTE)                                                \
	X(shorts, N, PVM_SHORT)                                                \
	X(ushorts, N, PVM_USHORT)                                              \
	X(ints, N, PVM_INT)                                                    \
	X(uints, N, PVM_UINT)                                                  \
	X(longs, N, PVM_LONG)                                                  \
	X(ulongs, N, PVM_ULONG)                                                \
	X(floats, N, PVM_FLOAT)                                                \
	X(doubles, N, PVM_DOUBLE)                                              \
	X(cplx, N, PVM_CPLX)                                                   \
	X(dcplx, N, PVM_DCPLX)

static int recv_from(int tid, int tag)
{
	struct timeval tmout = {WAIT_S, 0};
	return pvm_trecv(tid, tag, &tmout);
}

/* psend also moves one large array of NSENT longs (32 KiB or more:
 * enough for the shared-memory route's single copy into a waiting
 * pvm_precv), received into room for NBIG: what an LP64 task sends fits
 * in what an ILP32 one posts, as bytes, so only the check of the data
 * format keeps it from landing there unconverted. */
#define NBIG  16384
#define NSENT (NBIG / 2)
static long bigarr[NBIG];

static void fill_big(void)
{
	for (int i = 0; i < NBIG; i++)
		bigarr[i] = (long)i * 3 - 20000;
}

/* Sends d to the n tids: one message in `enc` (pvm_send, or pvm_mcast
 * to several), or one pvm_psend per array to one.  `big`: longs of 2^40
 * and -2^40 follow, and in Raw and InPlace an unsigned long past 2^63
 * too (from an LP64 task). */
static int send_data(const int *tids, int n, int tag, const struct data *d,
		     int big)
{
	int tid = tids[0];
	if (use_psend) {
#define PS(f, n, type)                                                         \
	if (pvm_psend(tid, tag, (void *)d->f, n, type) < 0)                    \
		return -1;
		PSENDS(PS)
#undef PS
		fill_big();
		/* the receiver is waiting in pvm_precv for it by now: on one
		 * host, a posted receive of another format must not take the
		 * single copy */
		struct timespec pause = {0, 100 * 1000 * 1000};
		nanosleep(&pause, NULL);
		if (pvm_psend(tid, tag, bigarr, NSENT, PVM_LONG) < 0)
			return -1;
		return big && pvm_psend(tid, tag, (void *)big_longs, 2,
					PVM_LONG) < 0
			       ? -1
			       : 0;
	}
	pvm_initsend(enc);
	if (pack(d) ||
	    (big && (pvm_pklong((long *)big_longs, 2, 1) ||
		     pvm_pkulong((unsigned long *)&big_ulong, 1, 1))))
		return -1;
	return n == 1 ? pvm_send(tid, tag) : pvm_mcast((int *)tids, n, tag);
}

/* The longs of 2^40 and -2^40 received into l with code cc: the values
 * where long has 64 bits; PvmOverflow and nothing stored where it has
 * 32.  NULL, or what failed. */
static const char *big_ok(int cc, const long *l)
{
	if (sizeof(long) == 8)
		return cc == 0 && l[0] == big_longs[0] && l[1] == big_longs[1]
			       ? NULL
			       : "longs of 2^40";
	return cc == PvmOverflow && l[0] == 0 && l[1] == 0
		       ? NULL
		       : "longs of 2^40 not PvmOverflow";
}

/* This program's data signature: what pvm_getminfo says of a Raw buffer
 * it packs.  (A 32-bit program on a 64-bit host has its own, not the
 * host's hi_dsig.) */
static int my_dsig(void)
{
	struct pvmminfo mi = {0};
	int b = pvm_mkbuf(PvmDataRaw);
	pvm_getminfo(b, &mi);
	pvm_freebuf(b);
	return mi.enc;
}

/* Receives what send_data sent into d (the fields psend does not carry
 * hold the expected values).  0, or a word for what failed. */
static const char *recv_data(int tid, int tag, struct data *d, int big, int sig)
{
	long l[2] = {0, 0};
	/* PvmOverflow is expected where long has 32 bits */
	if (big && sizeof(long) < 8)
		pvm_setopt(PvmAutoErr, 0);
	if (use_psend) {
		fill(d);
#define PR(f, n, type)                                                         \
	memset(d->f, 0, sizeof d->f);                                          \
	if (pvm_precv(tid, tag, d->f, n, type, NULL, NULL, NULL) < 0)          \
		return "precv " #f;
		PSENDS(PR)
#undef PR
		memset(bigarr, 0, sizeof bigarr);
		/* its length in this host's longs, whoever sent it */
		int alen = -1;
		if (pvm_precv(tid, tag, bigarr, NBIG, PVM_LONG, NULL, NULL,
			      &alen) < 0)
			return "precv big longs";
		static char why[64];
		if (alen != NSENT * (int)sizeof(long)) {
			snprintf(why, sizeof why, "precv big longs: length %d",
				 alen);
			return why;
		}
		for (int i = 0; i < NSENT; i++)
			if (bigarr[i] != (long)i * 3 - 20000) {
				snprintf(why, sizeof why, "big longs [%d] %ld",
					 i, bigarr[i]);
				return why;
			}
		return big ? big_ok(pvm_precv(tid, tag, l, 2, PVM_LONG, NULL,
					      NULL, NULL),
				    l)
			   : NULL;
	}
	int bufid = recv_from(tid, tag);
	if (bufid <= 0)
		return "no message";
	/* pvm_getminfo: XDR's signature, or the sender's, `sig` */
	struct pvmminfo mi;
	if (pvm_getminfo(bufid, &mi) < 0 ||
	    mi.enc != (enc == PvmDataDefault ? 0x10000000 : sig))
		return "pvm_getminfo's enc";
	if (unpack(d))
		return "unpack";
	if (!big)
		return NULL;
	const char *bad = big_ok(pvm_upklong(l, 2, 1), l);
	if (bad || sizeof(long) < 8)
		return bad;
	unsigned long u = 0;
	return pvm_upkulong(&u, 1, 1) == 0 && u == big_ulong
		       ? NULL
		       : "ulong past 2^63";
}

/* What differs from the expected values, bit for bit (NaN and -0 too), or
 * NULL. */
static const char *differs(const struct data *got)
{
	struct data want;
	fill(&want);
#define SAME(f)                                                                \
	if (memcmp(got->f, want.f, sizeof want.f))                             \
		return #f;
	SAME(bytes)
	SAME(shorts)
	SAME(ushorts)
	SAME(ints)
	SAME(uints)
	SAME(longs)
	SAME(ulongs)
	SAME(floats)
	SAME(doubles)
	SAME(cplx)
	SAME(dcplx)
	SAME(str)
#undef SAME
	return NULL;
}

/* The ELF machine of this program's file, by name. */
static const char *elf_machine(void)
{
	unsigned char h[20];
	FILE *f = fopen("/proc/self/exe", "rb");
	size_t n = f ? fread(h, 1, sizeof h, f) : 0;
	if (f)
		fclose(f);
	if (n < sizeof h || memcmp(h, "\177ELF", 4))
		return "?";
	int m = h[5] == 2 ? h[18] << 8 | h[19] : h[19] << 8 | h[18];
	switch (m) {
	case 3:
		return "i386";
	case 22:
		return "s390";
	case 62:
		return "x86-64";
	default:
		return "other";
	}
}

/* The mcast carries what one pvm_send would (psend: PvmDataDefault). */
static void mcast_mode(void)
{
	if (use_psend) {
		use_psend = 0;
		enc = PvmDataDefault;
	}
}

static int copy(int parent, int big, int psig)
{
	const uint16_t one = 1;
	pvm_initsend(PvmDataDefault);
	pvm_pkstr(*(const char *)&one ? "little-endian" : "big-endian");
	int lsize = (int)sizeof(long);
	pvm_pkint(&lsize, 1, 1);
	pvm_pkstr((char *)elf_machine());
	int sig = my_dsig();
	pvm_pkint(&sig, 1, 1);
	pvm_send(parent, TAG_REPORT);

	struct data d;
	const char *bad = recv_data(parent, TAG_DATA, &d, big, psig);
	if (!bad)
		bad = differs(&d);
	pvm_initsend(PvmDataDefault);
	pvm_pkstr(bad ? (char *)bad : "ok");
	pvm_send(parent, TAG_STATUS);
	send_data(&parent, 1, TAG_BACK, &d, 0);

	mcast_mode();
	const char *mbad = recv_data(parent, TAG_MCAST, &d,
				     big && enc != PvmDataDefault, psig);
	if (!mbad)
		mbad = differs(&d);
	pvm_initsend(PvmDataDefault);
	pvm_pkstr(mbad ? (char *)mbad : "ok");
	pvm_send(parent, TAG_MSTAT);
	pvm_exit();
	return bad != NULL || mbad != NULL;
}

/* The encoding named by -e (sets enc and use_psend); 0 or -1. */
static int set_mode(const char *m)
{
	if (!strcmp(m, "default"))
		enc = PvmDataDefault;
	else if (!strcmp(m, "packf"))
		use_packf = 1;
	else if (!strcmp(m, "raw"))
		enc = PvmDataRaw;
	else if (!strcmp(m, "inplace"))
		enc = PvmDataInPlace;
	else if (!strcmp(m, "psend"))
		use_psend = 1;
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	int direct = 0, a = 1;
	const char *mode = "default";
	if (argc > 4 && !strcmp(argv[1], "-copy")) {
		if (set_mode(argv[2]) < 0)
			return 2;
		if (argc > 5 && !strcmp(argv[5], "-d"))
			pvm_setopt(PvmRoute, PvmRouteDirect);
		int parent = pvm_parent();
		return parent > 0 ? copy(parent, atoi(argv[3]),
					 (int)strtoul(argv[4], NULL, 16))
				  : 1;
	}
	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-d"))
			direct = 1;
		else if (!strcmp(argv[a], "-e") && a + 1 < argc)
			mode = argv[++a];
		else
			break;
	}
	if (argc <= a || set_mode(mode) < 0) {
		fprintf(stderr,
			"usage: pt_arch [-d] [-e default|packf|raw|inplace|psend] "
			"HOST|arch=ARCH...\n");
		return 2;
	}
	if (pvm_mytid() < 0)
		return 1;
	if (direct)
		pvm_setopt(PvmRoute, PvmRouteDirect);
	/* longs past 32 bits: from an LP64 task in Raw, InPlace and psend;
	 * in PvmDataDefault (XDR's 32 bits) packing one gives PvmOverflow */
	int big = (enc != PvmDataDefault || use_psend) && sizeof(long) == 8;
	if (enc == PvmDataDefault && !use_psend && sizeof(long) == 8) {
		pvm_initsend(PvmDataDefault);
		pvm_setopt(PvmAutoErr, 0); /* the error is expected */
		int cc = pvm_pklong((long *)big_longs, 1, 1);
		pvm_setopt(PvmAutoErr, 1);
		if (cc != PvmOverflow) {
			printf("a long of 2^40 in PvmDataDefault: no PvmOverflow\n");
			return 1;
		}
	}
	char sighex[16];
	snprintf(sighex, sizeof sighex, "%x", (unsigned)my_dsig());
	char *args[] = {"-copy", (char *)mode,	       big ? "1" : "0",
			sighex,	 direct ? "-d" : NULL, NULL};
	int fails = 0, tids[MAXH], nt = 0;
	const char *names[MAXH];
	struct data d;
	fill(&d);
	if (argc - a > MAXH)
		argc = a + MAXH;
	for (int h = a; h < argc; h++) {
		int tid = 0, byarch = !strncmp(argv[h], "arch=", 5);
		if (pvm_spawn("pt_arch", args,
			      byarch ? PvmTaskArch : PvmTaskHost,
			      argv[h] + (byarch ? 5 : 0), 1, &tid) != 1) {
			printf("%s: spawn failed (%d)\n", argv[h], tid);
			fails++;
			continue;
		}
		char order[32] = "?", machine[65] = "?", there[64] = "?";
		int lsize = 0, sig = 0;
		if (recv_from(tid, TAG_REPORT) > 0) {
			pvm_upkstr(order);
			pvm_upkint(&lsize, 1, 1);
			pvm_upkstr(machine);
			pvm_upkint(&sig, 1, 1);
		}
		tids[nt] = tid;
		names[nt++] = argv[h];
		send_data(&tid, 1, TAG_DATA, &d, big);
		if (recv_from(tid, TAG_STATUS) > 0)
			pvm_upkstr(there);
		struct data back;
		const char *bad = recv_data(tid, TAG_BACK, &back, 0, sig);
		if (!bad)
			bad = differs(&back);
		printf("%s: %s long=%d elf=%s there=%s back=%s\n", argv[h],
		       order, lsize, machine, there, bad ? bad : "ok");
		fails += bad != NULL || strcmp(there, "ok") != 0;
	}
	if (nt > 0) {
		mcast_mode();
		int mfails = send_data(tids, nt, TAG_MCAST, &d,
				       big && enc != PvmDataDefault) < 0;
		printf("mcast to %d:", nt);
		for (int k = 0; k < nt; k++) {
			char st[64] = "no answer";
			if (recv_from(tids[k], TAG_MSTAT) > 0)
				pvm_upkstr(st);
			if (strcmp(st, "ok")) {
				printf(" %s=%s", names[k], st);
				mfails++;
			}
		}
		printf("%s\n", mfails ? "" : " ok");
		fails += mfails;
	}
	pvm_exit();
	return fails != 0;
}
