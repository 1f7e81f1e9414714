/*
 * pt_shm_child.c - the children pt_shm spawns (pt_shm child-MODE ARG), and
 * the loops that parent and child both run (test/shm.bats).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>

#include "tcommon.h"
#include "tpattern.h"
#include "pt_shm.h"

/* Echoes every message back to its sender (Default: unpacked and packed
 * again as ints; others: the body's bytes, Raw) until T_END, each
 * delay_ms after it came (with a delay the parent waits in pvm_precv by
 * then, even under valgrind, and a large echo goes straight into its
 * buffer: docs/shm.md). */
static int child_echo(int delay_ms)
{
	int parent = pvm_parent();
	for (;;) {
		int b = pvm_recv(-1, -1), len, tag, src;
		if (b < 0 || pvm_bufinfo(b, &len, &tag, &src) < 0)
			return 1;
		if (tag == T_END)
			break;
		if (tag == T_DEF) {
			int n = 0;
			pvm_upkint(&n, 1, 1);
			int *v = malloc(sizeof(int) * (size_t)(n ? n : 1));
			pvm_upkint(v, n, 1);
			pvm_initsend(PvmDataDefault);
			pvm_pkint(&n, 1, 1);
			pvm_pkint(v, n, 1);
			free(v);
		} else {
			uint8_t *d = malloc((size_t)len + 1);
			pvm_upkbyte((char *)d, len, 1);
			pvm_initsend(PvmDataRaw);
			pvm_pkbyte((char *)d, len, 1);
			free(d);
		}
		if (delay_ms)
			t_msleep(delay_ms);
		pvm_send(src, tag);
	}
	(void)parent;
	pvm_exit();
	return 0;
}

/* Receives numbered messages (int i, then i bytes of pattern i) from the
 * parent after a delay, checks order and bytes, reports the count. */
static int child_order(int delay_ms)
{
	int parent = pvm_parent(), ok = 0, want = 0, errs = 0;
	t_msleep(delay_ms);
	for (;;) {
		int b = pvm_recv(parent, -1), len, tag, src;
		pvm_bufinfo(b, &len, &tag, &src);
		if (tag == T_END)
			break;
		int i = -1;
		pvm_upkint(&i, 1, 1);
		uint8_t buf[4096];
		int n = i % 4096;
		pvm_upkbyte((char *)buf, n, 1);
		if (i != want || bad(buf, (size_t)n, (unsigned)i) >= 0)
			errs++;
		else
			ok++;
		want = i + 1;
	}
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&ok, 1, 1);
	pvm_pkint(&errs, 1, 1);
	pvm_send(parent, T_OK);
	pvm_exit();
	return 0;
}

/* Receives one psend of `bytes` and checks it; answers 0 or 1. */
static int child_big(size_t bytes)
{
	int parent = pvm_parent();
	uint8_t *p = malloc(bytes ? bytes : 1);
	int got = 0, st = 1;
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE); /* our inbox exists */
	if (p &&
	    pvm_precv(parent, T_DATA, p, (int)bytes, PVM_BYTE, NULL, NULL,
		      &got) == 0 &&
	    (size_t)got == bytes && bad(p, bytes, 7) < 0)
		st = 0;
	pvm_psend(parent, T_OK, &st, 1, PVM_INT);
	pvm_exit();
	return 0;
}

/* The messages of do_lend (pt_shm.c), in order: the seeds of their
 * LEND_MIB parts. */
static const int lend_parts[][3] = {
	{1}, {1, 2}, {3}, {4}, {4}, {5}, {6},
};
#define LEND_N (int)(sizeof lend_parts / sizeof lend_parts[0])

/* Does not read for `ms` (nothing of ours polls the rings meanwhile, so
 * the parent's large messages stay queued in its memory), then checks
 * every message of do_lend; the last one is Default (ints). */
static int child_lend(int ms)
{
	int parent = pvm_parent(), errs = 0;
	uint8_t *p = malloc(3 * LEND_MIB);
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE);
	usleep((useconds_t)ms * 1000);
	for (int i = 0; i < LEND_N && p; i++) {
		int len = 0, tag, src, n = 0;
		int b = pvm_recv(parent, T_DATA);
		pvm_bufinfo(b, &len, &tag, &src);
		while (n < 3 && lend_parts[i][n])
			n++;
		if (i == LEND_N - 1) {
			/* Default: n MiB of bytes packed as ints */
			if (pvm_upkint((int *)p, (int)(n * LEND_MIB / 4), 1) <
			    0)
				len = -1;
			else
				len = (int)(n * LEND_MIB);
		} else if (len != (int)(n * LEND_MIB) ||
			   pvm_upkbyte((char *)p, len, 1) < 0) {
			len = -1;
		}
		if (len != (int)(n * LEND_MIB)) {
			fprintf(stderr, "lend: message %d: length %d\n", i,
				len);
			errs++;
			continue;
		}
		for (int k = 0; k < n; k++) {
			long at = bad(p + k * LEND_MIB, LEND_MIB,
				      (unsigned)lend_parts[i][k]);
			if (at >= 0) {
				fprintf(stderr,
					"lend: message %d, part %d: "
					"byte %ld differs\n",
					i, k, at);
				errs++;
			}
		}
	}
	pvm_psend(parent, T_OK, &errs, 1, PVM_INT);
	pvm_exit();
	return 0;
}

/* Slow receiver: n messages of kib KiB, 1 ms apart. */
static int child_slow(int n, int kib)
{
	int parent = pvm_parent(), errs = 0;
	size_t sz = (size_t)kib << 10;
	uint8_t *p = malloc(sz);
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE);
	t_msleep(300); /* the sender has queued everything by now */
	for (int i = 0; i < n; i++) {
		int got = 0, tag = 0;
		if (pvm_precv(parent, -1, p, (int)sz, PVM_BYTE, NULL, &tag,
			      &got) < 0 ||
		    tag != 100 + i % 1000 || (size_t)got != sz ||
		    bad(p, sz, (unsigned)i) >= 0)
			errs++;
		if (i % 16 == 0)
			t_msleep(1);
	}
	pvm_psend(parent, T_OK, &errs, 1, PVM_INT);
	pvm_exit();
	return 0;
}

/* Both sides: send `mib` MiB in 1 MiB messages to `peer`, then receive
 * as much from it and check.  Returns the number of errors. */
int mutual(int peer, int mib, unsigned seed_out, unsigned seed_in)
{
	size_t sz = 1 << 20;
	uint8_t *p = malloc(sz);
	int errs = 0;
	for (int i = 0; i < mib; i++) {
		fill(p, sz, seed_out + (unsigned)i);
		if (pvm_psend(peer, T_DATA, p, (int)sz, PVM_BYTE) < 0)
			errs++;
	}
	for (int i = 0; i < mib; i++) {
		int got = 0;
		if (pvm_precv(peer, T_DATA, p, (int)sz, PVM_BYTE, NULL, NULL,
			      &got) < 0 ||
		    (size_t)got != sz || bad(p, sz, seed_in + (unsigned)i) >= 0)
			errs++;
	}
	free(p);
	return errs;
}

static int child_mutual(int mib)
{
	int parent = pvm_parent();
	int errs = mutual(parent, mib, 2000, 1000);
	pvm_psend(parent, T_OK, &errs, 1, PVM_INT);
	pvm_exit();
	return 0;
}

/* Sends one big message to the parent (it kills us meanwhile). */
static int child_bigsend(int mib)
{
	int parent = pvm_parent();
	size_t sz = (size_t)mib << 20;
	uint8_t *p = malloc(sz);
	memset(p, 1, sz);
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE);
	for (;;)
		pvm_psend(parent, T_DATA, p, (int)sz, PVM_BYTE);
	return 0;
}

/* Never receives; with "noterm", ignores SIGTERM too (the halt must
 * SIGKILL it). */
static int child_deaf(const char *how)
{
	if (!strcmp(how, "noterm"))
		signal(SIGTERM, SIG_IGN);
	pvm_psend(pvm_parent(), T_READY, NULL, 0, PVM_BYTE);
	for (;;)
		pause();
	return 0;
}

/* Stress partner: ping-pong with random pauses. */
static void rnd_pause(unsigned *s)
{
	*s = *s * 1103515245 + 12345;
	unsigned r = (*s >> 16) % 100;
	if (r < 40)
		return;
	if (r < 80)
		sched_yield();
	else
		usleep((*s >> 8) % 700);
}

int stress(int peer, int n, unsigned seed, int first)
{
	int errs = 0;
	for (int i = 0; i < n; i++) {
		int v = -1;
		if (first) {
			rnd_pause(&seed);
			pvm_psend(peer, T_DATA, &i, 1, PVM_INT);
			rnd_pause(&seed);
			pvm_precv(peer, T_DATA, &v, 1, PVM_INT, NULL, NULL,
				  NULL);
		} else {
			rnd_pause(&seed);
			pvm_precv(peer, T_DATA, &v, 1, PVM_INT, NULL, NULL,
				  NULL);
			rnd_pause(&seed);
			pvm_psend(peer, T_DATA, &i, 1, PVM_INT);
		}
		if (v != i)
			errs++;
	}
	return errs;
}

static int child_stress(int n)
{
	int parent = pvm_parent();
	int errs = stress(parent, n, (unsigned)getpid(), 0);
	pvm_psend(parent, T_OK, &errs, 1, PVM_INT);
	pvm_exit();
	return 0;
}

/* Started by the parent with fork and exec, not spawned (argv: the
 * parent's tid): sends a burst of short messages when told and leaves at
 * once (pvm_exit right after the last send, as mhf_tickle does). */
static int child_burst(int parent)
{
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE);
	pvm_precv(parent, T_READY, NULL, 0, PVM_BYTE, NULL, NULL, NULL);
	for (int k = 0; k < 8; k++)
		pvm_psend(parent, T_BURST + k, &k, 1, PVM_INT);
	pvm_exit();
	return 0;
}

static int child_block(void)
{
	int parent = pvm_parent(), v = 0;
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE);
	pvm_precv(parent, T_DATA, &v, 1, PVM_INT, NULL, NULL, NULL);
	pvm_psend(parent, T_OK, &v, 1, PVM_INT);
	pvm_exit();
	return 0;
}

/* child-pinned CPU:US: runs on CPU only, and answers each T_DATA with
 * T_OK after computing US microseconds of its own CPU time, until T_END
 * (test/shm.bats, the oversubscribed ping-pong). */
static int child_pinned(int cpu, int us)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof s, &s) < 0)
		return 1;
	int parent = pvm_parent(), v = 0, tag = 0;
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE);
	for (;;) {
		pvm_precv(parent, -1, &v, 1, PVM_INT, NULL, &tag, NULL);
		if (tag != T_DATA)
			break;
		struct timespec a, b;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
		do
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec -
			       a.tv_nsec <
		       us * 1000L);
		pvm_psend(parent, T_OK, &v, 1, PVM_INT);
	}
	pvm_exit();
	return 0;
}

/* child-wid: answers each T_DATA message (until T_END) with one of the
 * same size whose wait id is the received one plus 1. */
static int child_wid(void)
{
	int par = pvm_parent();
	for (;;) {
		int b = pvm_recv(par, -1);
		struct pvmminfo mi;
		if (b <= 0 || pvm_getminfo(b, &mi) < 0 || mi.tag != T_DATA)
			break;
		char *p = malloc((size_t)mi.len + 1);
		pvm_upkbyte(p, mi.len, 1);
		int sb = pvm_initsend(PvmDataRaw);
		pvm_pkbyte(p, mi.len, 1);
		free(p);
		struct pvmminfo out;
		pvm_getminfo(sb, &out);
		out.wid = mi.wid + 1;
		pvm_setminfo(sb, &out);
		pvm_send(par, T_DATA);
	}
	pvm_exit();
	return 0;
}

/* child-append: takes one message, packs one more int (9) into it and
 * sends it back as it is. */
static int child_append(void)
{
	int par = pvm_parent();
	int b = pvm_recv(par, T_DATA), nine = 9;
	if (b > 0 && pvm_setsbuf(b) >= 0 && pvm_pkint(&nine, 1, 1) == 0)
		pvm_send(par, T_DATA);
	pvm_exit();
	return 0;
}

int pt_shm_child(const char *m, const char *a)
{
	if (!strcmp(m, "child-append"))
		return child_append();
	if (!strcmp(m, "child-wid"))
		return child_wid();
	if (!strcmp(m, "child-echo"))
		return child_echo(atoi(a));
	if (!strcmp(m, "child-order"))
		return child_order(atoi(a));
	if (!strcmp(m, "child-big"))
		return child_big((size_t)strtoull(a, NULL, 10));
	if (!strcmp(m, "child-slow"))
		return child_slow(atoi(a), atoi(strchr(a, ':') + 1));
	if (!strcmp(m, "child-mutual"))
		return child_mutual(atoi(a));
	if (!strcmp(m, "child-bigsend"))
		return child_bigsend(atoi(a));
	if (!strcmp(m, "child-deaf"))
		return child_deaf(a);
	if (!strcmp(m, "child-stress"))
		return child_stress(atoi(a));
	if (!strcmp(m, "child-burst"))
		return child_burst(atoi(a));
	if (!strcmp(m, "child-block"))
		return child_block();
	if (!strcmp(m, "child-pinned"))
		return child_pinned(atoi(a), atoi(strchr(a, ':') + 1));
	if (!strcmp(m, "child-lend"))
		return child_lend(atoi(a));
	return -1;
}
