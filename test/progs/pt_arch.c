/*
 * pt_arch.c - what a task runs on, and PvmDataDefault between unlike
 * hosts (hetero.bats, docs/hetero.md).
 *
 *   pt_arch [-d] WHERE...      WHERE: a host name, or arch=ARCH
 *
 * Spawns a copy of itself on each host named (PvmTaskHost), or on a host
 * of architecture ARCH (PvmTaskArch): its own binary there, from that
 * host's spawn path.  -d: the messages take the direct route
 * (PvmRouteDirect, in both tasks).  Each copy reports what it runs on, measured
 * by itself (byte order, sizeof(long), and the ELF machine of its own program,
 * /proc/self/exe, which qemu-user answers with the program it runs, not
 * itself), then receives a message of every type with edge values packed in
 * PvmDataDefault, checks every bit, and sends back what it unpacked, packed
 * again; the first task checks that too.  Prints one line per host: HOST: ORDER
 * long=N elf=MACHINE there=ok back=ok
 * ("there": the copy's check; "back": the first task's) and exits 0 only
 * if every check passed.  Spawned, its first argument is -copy (then -d).
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <pvm3.h>

#define N	   16
#define TAG_REPORT 1
#define TAG_DATA   2
#define TAG_BACK   3
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

static int pack(const struct data *d)
{
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
	       pvm_pkstr((char *)d->str);
}

static int unpack(struct data *d)
{
	memset(d, 0, sizeof *d);
	return pvm_upkbyte(d->bytes, 256, 1) || pvm_upkshort(d->shorts, N, 1) ||
	       pvm_upkushort(d->ushorts, N, 1) || pvm_upkint(d->ints, N, 1) ||
	       pvm_upkuint(d->uints, N, 1) || pvm_upklong(d->longs, N, 1) ||
	       pvm_upkulong(d->ulongs, N, 1) || pvm_upkfloat(d->floats, N, 1) ||
	       pvm_upkdouble(d->doubles, N, 1) || pvm_upkcplx(d->cplx, N, 1) ||
	       pvm_upkdcplx(d->dcplx, N, 1) || pvm_upkstr(d->str);
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

static int recv_from(int tid, int tag)
{
	struct timeval tmout = {WAIT_S, 0};
	return pvm_trecv(tid, tag, &tmout);
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

static int copy(int parent)
{
	const uint16_t one = 1;
	pvm_initsend(PvmDataDefault);
	pvm_pkstr(*(const char *)&one ? "little-endian" : "big-endian");
	int lsize = (int)sizeof(long);
	pvm_pkint(&lsize, 1, 1);
	pvm_pkstr((char *)elf_machine());
	pvm_send(parent, TAG_REPORT);

	struct data d;
	if (recv_from(parent, TAG_DATA) <= 0 || unpack(&d)) {
		pvm_exit();
		return 1;
	}
	const char *bad = differs(&d);
	pvm_initsend(PvmDataDefault);
	pvm_pkstr(bad ? (char *)bad : "ok");
	pack(&d);
	pvm_send(parent, TAG_BACK);
	pvm_exit();
	return bad != NULL;
}

int main(int argc, char **argv)
{
	int direct = 0, a = 1;
	if (argc > 1 && !strcmp(argv[1], "-copy")) {
		if (argc > 2 && !strcmp(argv[2], "-d"))
			pvm_setopt(PvmRoute, PvmRouteDirect);
		int parent = pvm_parent();
		return parent > 0 ? copy(parent) : 1;
	}
	if (argc > 1 && !strcmp(argv[1], "-d"))
		direct = a = 2;
	if (argc <= a) {
		fprintf(stderr, "usage: pt_arch [-d] HOST|arch=ARCH...\n");
		return 2;
	}
	if (pvm_mytid() < 0)
		return 1;
	if (direct)
		pvm_setopt(PvmRoute, PvmRouteDirect);
	char *args[] = {"-copy", direct ? "-d" : NULL, NULL};
	int fails = 0;
	struct data d;
	fill(&d);
	for (int h = a; h < argc; h++) {
		int tid = 0, byarch = !strncmp(argv[h], "arch=", 5);
		if (pvm_spawn("pt_arch", args,
			      byarch ? PvmTaskArch : PvmTaskHost,
			      argv[h] + (byarch ? 5 : 0), 1, &tid) != 1) {
			printf("%s: spawn failed (%d)\n", argv[h], tid);
			fails++;
			continue;
		}
		char order[32] = "?", machine[65] = "?", there[32] = "?";
		int lsize = 0;
		if (recv_from(tid, TAG_REPORT) > 0) {
			pvm_upkstr(order);
			pvm_upkint(&lsize, 1, 1);
			pvm_upkstr(machine);
		}
		pvm_initsend(PvmDataDefault);
		pack(&d);
		pvm_send(tid, TAG_DATA);
		struct data back;
		const char *bad = "no answer";
		if (recv_from(tid, TAG_BACK) > 0 && !pvm_upkstr(there))
			bad = unpack(&back) ? "unpack" : differs(&back);
		printf("%s: %s long=%d elf=%s there=%s back=%s\n", argv[h],
		       order, lsize, machine, there, bad ? bad : "ok");
		fails += bad != NULL || strcmp(there, "ok") != 0;
	}
	pvm_exit();
	return fails != 0;
}
