/*
 * pt_mh - multi-host tests (test/multihost.bats).  Usage: pt_mh <mode> ARGS
 *   pingall [nobig]        one partner on each other host; every route
 *                          (pvmd: PvmDontRoute, default: PvmAllowDirect,
 *                          direct: PvmRouteDirect), encoding (default, raw,
 *                          inplace) and psend/precv, sizes 0 .. 1 MiB and
 *                          one 16 MiB per route; each echo checked byte for
 *                          byte: "ok host H route R enc E size S"
 *   stream HOST SECS       echoes with a partner on HOST for SECS seconds,
 *                          every one checked: "stream host H rounds N"
 *   lost HOST SECS         a partner on HOST; "ready"; once HOST is gone,
 *                          sends to it (both routes) return at once
 *   hang HOST OP GOFILE MS a child on HOST; "ready"; once GOFILE exists
 *                          (the test has stopped HOST's pvmd), one call
 *                          that HOST's pvmd answers (OP: pstat, tasks,
 *                          kill, route: the first direct send): it must
 *                          return within MS ms, when HOST is declared
 *                          dead, not wait for ever
 *   spawn N                default placement of N tasks (per-host counts),
 *                          PvmTaskHost, PvmTaskArch, PvmHostCompl,
 *                          pvm_tasks(0) and pvm_tasks(host tid)
 *   notify HOST SECS [add] a child on HOST; PvmTaskExit for it,
 *                          PvmHostDelete for HOST, PvmHostAdd; prints
 *                          "ready", then "taskexit tX after MS ms at EPOCHMS"
 *                          and "hostdelete tX after ..." as they come (and
 *                          "hostadd tX ..." with `add`), within SECS
 *   group K                K members on every host join a group with us:
 *                          barrier, reduce (ints, doubles), bcast, gather,
 *                          scatter, leave
 *   hostinfo               pvm_mstat, pvm_hostsync, pvm_archcode of every host
 *   addhosts NAME[=WANT].. pvm_addhosts (WANT: ok, NoHost, DupHost,
 *                          CantStart), PvmHostAdd notifies, pvm_delhosts of
 *                          the added ones, PvmHostDelete
 *   mbox HOST              mailbox between us and a child on HOST: lookup,
 *                          PvmMboxWaitForInfo, a persistent entry
 *   output HOST            pvm_catchout(stdout), a child on HOST prints 3
 *                          lines ("[tX] line N of tX"), then exits
 * spawn, hostinfo, addhosts and grow are in pt_mh_hosts.c:
 *   grow HOST              a group whose barriers met in shared memory on
 *                          our one host goes on with a member on HOST,
 *                          added meanwhile
 * Children are copies of this program: "pt_mh child ROLE ...".  Every wait
 * is bounded (pvm_trecv), so a lost message fails instead of hanging.
 */
#include <stdint.h>

#include "pt_mh_payload.h"
#include "tcommon.h"
#include "pt_mh.h"

static double msg_wait = WAIT; /* pingall's echo wait (stream: shorter) */
static int quiet;	       /* stream: no line per message */

static const char *const encname[3] = {"default", "raw", "inplace"};
static const int encval[3] = {PvmDataDefault, PvmDataRaw, PvmDataInPlace};

int spawn_on(const char *role, int flags, const char *where, int n, int *tids,
	     char *arg)
{
	char *av[4] = {"child", (char *)role, arg, NULL};
	return pvm_spawn(ME, av, flags, (char *)where, n, tids);
}

static long long epoch_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* ---- children ---- */

/* The echo partner: for each {kind, route, enc, size} announced, receives
 * the message on the same path and sends it back unpacked and repacked. */
static void child_echo(int par)
{
	static char *pbuf;
	for (;;) {
		int b = t_recv(par, -1, 300), len, tag, src;
		if (b <= 0)
			return;
		pvm_bufinfo(b, &len, &tag, &src);
		if (tag != TAG_NEXT)
			return;
		int hdr[4] = {0};
		pvm_upkint(hdr, 4, 1);
		int kind = hdr[0], route = hdr[1], enc = hdr[2], size = hdr[3];
		pvm_setopt(PvmRoute, route);
		if (kind == 1) { /* psend/precv of bytes */
			free(pbuf);
			pbuf = malloc((size_t)size + 1);
			int atid = 0, atag = 0, alen = -1;
			if (!pbuf ||
			    pvm_precv(par, TAG_DATA, pbuf, size, PVM_BYTE,
				      &atid, &atag, &alen) < 0)
				return;
			pvm_psend(par, TAG_DATA, pbuf, alen, PVM_BYTE);
			continue;
		}
		b = t_recv(par, TAG_DATA, WAIT);
		if (b <= 0)
			return;
		struct payload p;
		if (pl_unpack(&p, enc == PvmDataInPlace) < 0)
			p.s = -2; /* the parent sees a wrong echo */
		pvm_initsend(enc);
		pl_pack(&p, enc == PvmDataInPlace);
		pvm_send(par, TAG_DATA);
		pl_free(&p);
	}
}

static void child_group(int par, int total)
{
	int inst = pvm_joingroup("mhgrp");
	int res[8] = {inst, 0, 0, 0, 0, 0, 0, 0};
	/* everyone has joined once the barrier passes */
	res[1] = pvm_barrier("mhgrp", total);
	int iv[3] = {inst, 1, inst * inst};
	double dv[2] = {inst * 0.5, -1.25};
	res[2] = pvm_reduce(PvmSum, iv, 3, PVM_INT, 40, "mhgrp", 0);
	res[2] |= pvm_reduce(PvmSum, dv, 2, PVM_DOUBLE, 41, "mhgrp", 0);
	/* bcast from the root: the sum of its ints must be 4950 */
	int b = t_recv(-1, 42, WAIT), v[100] = {0}, k, sum = 0;
	if (b > 0)
		pvm_upkint(v, 100, 1);
	for (k = 0; k < 100; k++)
		sum += v[k];
	res[3] = sum;
	int g = inst * 10;
	res[4] = pvm_gather(NULL, &g, 1, PVM_INT, 43, "mhgrp", 0);
	int sc = -1;
	res[5] = pvm_scatter(&sc, NULL, 1, PVM_INT, 44, "mhgrp", 0);
	res[6] = sc;
	res[7] = pvm_barrier("mhgrp", total);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(res, 8, 1);
	pvm_send(par, TAG_RES);
	t_recv(par, TAG_GO, WAIT); /* leave after everyone reported */
	pvm_lvgroup("mhgrp");
}

/* The mailbox names of one run: NAME.<parent's tid>, so that the
 * persistent entry of an earlier run in the same machine is no obstacle. */
static char *mbname(const char *base, int par)
{
	static char buf[4][64];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s.%x", base, (unsigned)par);
	return buf[k];
}

static void child_mbox(int par)
{
	int res[6] = {0};
	int b = pvm_recvinfo(mbname("mh.a", par), 0, PvmMboxDefault);
	int v[3] = {0};
	char s[64] = "";
	if (b > 0) {
		pvm_setrbuf(b);
		pvm_upkint(v, 3, 1);
		pvm_upkstr(s);
	}
	res[0] = b > 0 && v[0] == 7 && v[1] == -8 && v[2] == 9 &&
		 !strcmp(s, "from the first host");
	/* tell the parent we wait, then wait for mh.b to appear */
	pvm_initsend(PvmDataDefault);
	pvm_pkint(res, 1, 1);
	pvm_send(par, TAG_GO);
	b = pvm_recvinfo(mbname("mh.b", par), 0, PvmMboxWaitForInfo);
	int w = 0;
	if (b > 0) {
		pvm_setrbuf(b);
		pvm_upkint(&w, 1, 1);
	}
	res[1] = b > 0 && w == 4242;
	/* a persistent entry that outlives us */
	int mb = pvm_mkbuf(PvmDataDefault), mytid = pvm_mytid();
	pvm_setsbuf(mb);
	pvm_pkint(&mytid, 1, 1);
	res[2] = pvm_putinfo(mbname("mh.c", par), mb,
			     PvmMboxDefault | PvmMboxPersistent);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(res, 3, 1);
	pvm_send(par, TAG_RES);
}

static int child_main(char **av)
{
	int par = pvm_parent();
	if (pvm_mytid() < 0 || !av[2])
		return 2;
	const char *role = av[2];
	if (!strcmp(role, "echo"))
		child_echo(par);
	else if (!strcmp(role, "wait"))
		t_recv(-1, TAG_QUIT,
		       600); /* from anyone: the console spawns some */
	else if (!strcmp(role, "group"))
		child_group(par, av[3] ? atoi(av[3]) : 0);
	else if (!strcmp(role, "grow"))
		child_grow(par, av[3] ? atoi(av[3]) : 0);
	else if (!strcmp(role, "mbox"))
		child_mbox(par);
	else if (!strcmp(role, "exit"))
		; /* leaves at once */
	else if (!strcmp(role, "print")) {
		int k, me = pvm_mytid();
		for (k = 1; k <= 3; k++) {
			printf("line %d of t%x\n", k, (unsigned)me);
			fflush(stdout);
		}
	}
	pvm_exit();
	return 0;
}

/* ---- the host table ---- */

struct pvmhostinfo *hosts;
int nhost, myhost;

void get_hosts(void)
{
	int narch = 0;
	nhost = 0;
	int r = pvm_config(&nhost, &narch, &hosts);
	CHECK(r >= 0 && nhost > 0, "pvm_config: %d, %d hosts", r, nhost);
	myhost = pvm_tidtohost(pvm_mytid());
}

const char *host_name_of(int htid)
{
	for (int k = 0; k < nhost; k++)
		if (hosts[k].hi_tid == htid)
			return hosts[k].hi_name;
	return "?";
}

int host_tid_of(const char *name)
{
	for (int k = 0; k < nhost; k++)
		if (!strcmp(hosts[k].hi_name, name))
			return hosts[k].hi_tid;
	return 0;
}

/* ---- pingall ---- */

static void ping_one(int c, const char *hname, int route, int kind, int e,
		     int size)
{
	const char *rname = route == PvmRouteDirect ? "direct"
			    : route == PvmDontRoute ? "pvmd"
						    : "default";
	const char *ename = kind ? "psend" : encname[e];
	int hdr[4] = {kind, route, encval[e], size};
	pvm_setopt(PvmRoute, route);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(hdr, 4, 1);
	pvm_send(c, TAG_NEXT);
	long bad;
	if (kind) {
		unsigned char *out = malloc((size_t)size + 1);
		unsigned char *in = malloc((size_t)size + 1);
		for (int k = 0; k < size; k++)
			out[k] = (unsigned char)(k * 131 + size + 7);
		int r = pvm_psend(c, TAG_DATA, out, size, PVM_BYTE);
		/* precv has no timeout: wait for arrival with a probe first */
		double t0 = t_now();
		while (!pvm_probe(c, TAG_DATA) && t_now() - t0 < msg_wait)
			t_msleep(2);
		int atid = 0, atag = 0, alen = -1;
		if (r >= 0 && pvm_probe(c, TAG_DATA) > 0)
			r = pvm_precv(c, TAG_DATA, in, size, PVM_BYTE, &atid,
				      &atag, &alen);
		else
			r = -1;
		bad = r < 0 || atid != c || atag != TAG_DATA || alen != size
			      ? -1
			      : memcmp(in, out, (size_t)size) != 0;
		free(out), free(in);
	} else {
		struct payload p, q;
		pl_alloc(&p, size);
		pl_fill(&p);
		pvm_initsend(encval[e]);
		pl_pack(&p, encval[e] == PvmDataInPlace);
		int r = pvm_send(c, TAG_DATA);
		int b = r < 0 ? -1 : t_recv(c, TAG_DATA, msg_wait);
		bad = -1;
		if (b > 0 && pl_unpack(&q, encval[e] == PvmDataInPlace) == 0) {
			bad = pl_diff(&p, &q);
			pl_free(&q);
		}
		pl_free(&p);
	}
	CHECK(bad == 0, "host %s route %s enc %s size %d: %s", hname, rname,
	      ename, size, bad < 0 ? "no or wrong echo" : "data differ");
	if (bad == 0 && !quiet)
		printf("ok host %s route %s enc %s size %d\n", hname, rname,
		       ename, size);
	fflush(stdout);
}

static int pingall_main(int big)
{
	static const int sizes[] = {0, 1, 8, 4080, 4081, 65536, 1 << 20};
	/* through the pvmds, the default (PvmAllowDirect), direct */
	static const int routes[3] = {PvmDontRoute, PvmAllowDirect,
				      PvmRouteDirect};
	get_hosts();
	int npart = 0;
	for (int h = 0; h < nhost; h++) {
		if (hosts[h].hi_tid == myhost)
			continue;
		const char *hn = hosts[h].hi_name;
		int c = 0;
		int n = spawn_on("echo", PvmTaskHost, hn, 1, &c, NULL);
		CHECK(n == 1 && pvm_tidtohost(c) == hosts[h].hi_tid,
		      "spawn on %s: n=%d tid=t%x", hn, n, (unsigned)c);
		if (n != 1)
			continue;
		npart++;
		for (int r = 0; r < 3; r++) {
			for (int kind = 0; kind < 2; kind++)
				for (int e = 0; e < (kind ? 1 : 3); e++)
					for (size_t s = 0;
					     s < sizeof sizes / sizeof *sizes;
					     s++)
						ping_one(c, hn, routes[r], kind,
							 e, sizes[s]);
			if (big)
				ping_one(c, hn, routes[r], 0, 1, 16 << 20);
		}
		pvm_setopt(PvmRoute, PvmAllowDirect);
		pvm_initsend(PvmDataDefault);
		pvm_send(c, TAG_QUIT);
	}
	CHECK(npart == nhost - 1, "%d partners for %d other hosts", npart,
	      nhost - 1);
	printf("partners %d\n", npart);
	return t_done("pingall");
}

/* stream HOST SECS: echoes with a partner on HOST for SECS seconds, all
 * routes, sizes up to 64 KiB, every one checked (for a test that kills
 * another host meanwhile: no message between survivors may be lost). */
static int stream_main(const char *hname, double secs)
{
	static const int sizes[] = {0, 8, 4081, 65536};
	static const int routes[3] = {PvmDontRoute, PvmAllowDirect,
				      PvmRouteDirect};
	int c = 0;
	int n = spawn_on("echo", PvmTaskHost, hname, 1, &c, NULL);
	CHECK(n == 1, "spawn on %s: %d t%x", hname, n, (unsigned)c);
	if (n != 1)
		return t_done("stream");
	quiet = 1;
	msg_wait = 15;
	long rounds = 0;
	int fails = t_nfail;
	printf("stream started\n");
	double t0 = t_now();
	while (t_now() - t0 < secs && t_nfail == fails) {
		int k = (int)(rounds % 12);
		ping_one(c, hname, routes[k % 3], k % 4 == 3, k % 3,
			 sizes[rounds % 4]);
		rounds++;
	}
	pvm_setopt(PvmRoute, PvmAllowDirect);
	pvm_initsend(PvmDataDefault);
	pvm_send(c, TAG_QUIT);
	printf("stream host %s rounds %ld\n", hname, rounds);
	return t_done("stream");
}

/* lost HOST SECS: a partner on HOST reached both ways (through the pvmds
 * and direct); "ready"; then, once HOST is declared gone (the test kills
 * it), sends to the lost partner on both routes must return at once and
 * a receive from it time out, without hanging. */
static int lost_main(const char *hname, double secs)
{
	get_hosts();
	int htid = host_tid_of(hname), c = 0;
	int n = spawn_on("echo", PvmTaskHost, hname, 1, &c, NULL);
	CHECK(n == 1 && htid > 0, "spawn on %s: %d t%x", hname, n, (unsigned)c);
	if (n != 1 || htid <= 0)
		return t_done("lost");
	quiet = 1;
	ping_one(c, hname, PvmDontRoute, 0, 0, 100);
	ping_one(c, hname, PvmRouteDirect, 0, 1, 100);
	EQ(pvm_notify(PvmHostDelete, TAG_HD, 1, &htid), 0);
	printf("ready\n");
	CHECK(t_recv(-1, TAG_HD, secs) > 0, "no PvmHostDelete for %s", hname);
	static const int routes[2] = {PvmDontRoute, PvmRouteDirect};
	for (int r = 0; r < 2; r++) {
		pvm_setopt(PvmRoute, routes[r]);
		double t0 = t_now();
		int v = 5, rc;
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&v, 1, 1);
		rc = pvm_send(c, TAG_DATA);
		double ms = (t_now() - t0) * 1000;
		CHECK(ms < 2000, "send to a lost task took %.0f ms", ms);
		printf("send %s to the lost t%x: %d in %.0f ms\n",
		       r ? "direct" : "pvmd", (unsigned)c, rc, ms);
	}
	pvm_setopt(PvmRoute, PvmAllowDirect);
	EQ(t_recv(c, TAG_DATA, 1), 0);
	EQ(pvm_pstat(c), PvmNoTask);
	EQ(pvm_mstat((char *)hname), PvmNoHost);
	return t_done("lost");
}

/* hang HOST OP GOFILE MS: see the top. */
static int hang_main(const char *hname, const char *op, const char *go,
		     double ms)
{
	get_hosts();
	int htid = host_tid_of(hname), c = 0;
	int n = spawn_on("wait", PvmTaskHost, hname, 1, &c, NULL);
	CHECK(n == 1 && htid > 0, "spawn on %s: %d t%x", hname, n, (unsigned)c);
	if (n != 1 || htid <= 0)
		return t_done("hang");
	printf("ready child t%x\n", (unsigned)c);
	while (access(go, F_OK) != 0)
		t_msleep(10);
	double t0 = t_now();
	int r = -999, nt = -1;
	struct pvmtaskinfo *ti = NULL;
	if (!strcmp(op, "pstat"))
		r = pvm_pstat(c);
	else if (!strcmp(op, "tasks"))
		r = pvm_tasks(htid, &nt, &ti);
	else if (!strcmp(op, "kill"))
		r = pvm_kill(c);
	else if (!strcmp(op, "route")) {
		pvm_setopt(PvmRoute, PvmRouteDirect);
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&n, 1, 1);
		r = pvm_send(c, TAG_DATA);
	}
	double took = (t_now() - t0) * 1000;
	printf("%s returned %d (%d tasks) after %.0f ms\n", op, r, nt, took);
	CHECK(r != -999, "unknown op %s", op);
	CHECK(took < ms, "%s took %.0f ms", op, took);
	/* the host is gone by now: the same call is answered at once */
	if (!strcmp(op, "pstat"))
		EQ(pvm_pstat(c), PvmNoTask);
	return t_done("hang");
}

/* ---- notify ---- */

static int notify_main(const char *hname, double secs, int want_add)
{
	get_hosts();
	int htid = host_tid_of(hname);
	CHECK(htid > 0, "no host %s in the machine", hname);
	int c = 0;
	int n = spawn_on("wait", PvmTaskHost, hname, 1, &c, NULL);
	CHECK(n == 1, "spawn on %s: %d t%x", hname, n, (unsigned)c);
	if (n != 1 || htid <= 0)
		return t_done("notify");
	EQ(pvm_notify(PvmTaskExit, TAG_TX, 1, &c), 0);
	EQ(pvm_notify(PvmHostDelete, TAG_HD, 1, &htid), 0);
	EQ(pvm_notify(PvmHostAdd, TAG_HA, -1, NULL), 0);
	printf("ready child t%x host t%x at %lld\n", (unsigned)c,
	       (unsigned)htid, epoch_ms());
	fflush(stdout);
	double t0 = t_now();
	int tx = 0, hd = 0, ha = 0;
	while ((!tx || !hd || (want_add && !ha)) && t_now() - t0 < secs) {
		int b = t_recv(-1, -1, 0.2), len, tag, src, who = 0;
		if (b <= 0)
			continue;
		pvm_bufinfo(b, &len, &tag, &src);
		const char *what = tag == TAG_TX   ? "taskexit"
				   : tag == TAG_HD ? "hostdelete"
				   : tag == TAG_HA ? "hostadd"
						   : NULL;
		if (!what) {
			printf("unexpected message tag %d from t%x\n", tag,
			       (unsigned)src);
			continue;
		}
		if (tag == TAG_HA) {
			int cnt = 0;
			pvm_upkint(&cnt, 1, 1);
			if (cnt > 0)
				pvm_upkint(&who, 1, 1);
		} else {
			pvm_upkint(&who, 1, 1);
		}
		printf("%s t%x after %.0f ms at %lld\n", what, (unsigned)who,
		       (t_now() - t0) * 1000, epoch_ms());
		fflush(stdout);
		if (tag == TAG_TX) {
			EQ(who, c);
			tx++;
		} else if (tag == TAG_HD) {
			EQ(who, htid);
			hd++;
		} else {
			ha++;
		}
	}
	CHECK(tx == 1, "%d PvmTaskExit notifies", tx);
	CHECK(hd == 1, "%d PvmHostDelete notifies", hd);
	if (want_add)
		CHECK(ha >= 1, "%d PvmHostAdd notifies", ha);
	/* the survivors: the host is gone from the table and its task too */
	int was = nhost;
	get_hosts();
	EQ(nhost, was - 1);
	EQ(host_tid_of(hname), 0);
	struct pvmtaskinfo *ti = NULL;
	int nt = 0;
	EQ(pvm_tasks(0, &nt, &ti), 0);
	for (int j = 0; j < nt; j++)
		CHECK(ti[j].ti_tid != c, "t%x still listed", (unsigned)c);
	EQ(pvm_pstat(c), PvmNoTask);
	return t_done("notify");
}

/* ---- group ---- */

static int group_main(int per)
{
	get_hosts();
	int total = per * nhost + 1;
	int me = pvm_joingroup("mhgrp");
	EQ(me, 0);
	int *kids = calloc((size_t)total, sizeof *kids), nk = 0;
	char arg[16];
	snprintf(arg, sizeof arg, "%d", total);
	for (int h = 0; h < nhost; h++) {
		int got = spawn_on("group", PvmTaskHost, hosts[h].hi_name, per,
				   kids + nk, arg);
		EQ(got, per);
		nk += got > 0 ? got : 0;
	}
	EQ(pvm_barrier("mhgrp", total), 0);
	printf("barrier %d members on %d hosts\n", pvm_gsize("mhgrp"), nhost);
	int iv[3] = {0, 1, 0};
	double dv[2] = {0, -1.25};
	EQ(pvm_reduce(PvmSum, iv, 3, PVM_INT, 40, "mhgrp", 0), 0);
	EQ(pvm_reduce(PvmSum, dv, 2, PVM_DOUBLE, 41, "mhgrp", 0), 0);
	int m = total - 1, sq = m * (m + 1) * (2 * m + 1) / 6;
	EQ(iv[0], m * (m + 1) / 2);
	EQ(iv[1], total);
	EQ(iv[2], sq);
	CHECK(dv[0] == m * (m + 1) / 4.0 && dv[1] == -1.25 * total,
	      "double reduce %g %g", dv[0], dv[1]);
	printf("reduce ints %d %d %d doubles %g %g\n", iv[0], iv[1], iv[2],
	       dv[0], dv[1]);
	int v[100];
	for (int k = 0; k < 100; k++)
		v[k] = k;
	pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 100, 1);
	EQ(pvm_bcast("mhgrp", 42), 0);
	int *g = calloc((size_t)total, sizeof *g), mine = 0;
	EQ(pvm_gather(g, &mine, 1, PVM_INT, 43, "mhgrp", 0), 0);
	int gbad = 0;
	for (int k = 0; k < total; k++)
		gbad += g[k] != k * 10;
	EQ(gbad, 0);
	for (int k = 0; k < total; k++)
		g[k] = 1000 + k;
	int sc = -1;
	EQ(pvm_scatter(&sc, g, 1, PVM_INT, 44, "mhgrp", 0), 0);
	EQ(sc, 1000);
	EQ(pvm_barrier("mhgrp", total), 0);
	int good = 0;
	for (int k = 0; k < nk; k++) {
		int res[8] = {-1};
		int b = t_recv(-1, TAG_RES, WAIT), len, tag, src = 0;
		if (b <= 0)
			break;
		pvm_bufinfo(b, &len, &tag, &src);
		pvm_upkint(res, 8, 1);
		int i = res[0];
		int ok = i > 0 && i < total && res[1] == 0 && res[2] == 0 &&
			 res[3] == 4950 && res[4] == 0 && res[5] == 0 &&
			 res[6] == 1000 + i && res[7] == 0;
		CHECK(ok,
		      "member t%x inst %d: barrier %d reduce %d bcast %d "
		      "gather %d scatter %d/%d barrier %d",
		      (unsigned)src, i, res[1], res[2], res[3], res[4], res[5],
		      res[6], res[7]);
		good += ok;
	}
	printf("members ok %d of %d\n", good, nk);
	pvm_initsend(PvmDataDefault);
	pvm_mcast(kids, nk, TAG_GO);
	EQ(pvm_lvgroup("mhgrp"), 0);
	/* every member leaves; then the group is empty */
	double t0 = t_now();
	while (pvm_gsize("mhgrp") > 0 && t_now() - t0 < WAIT)
		t_msleep(50);
	CHECK(pvm_gsize("mhgrp") <= 0, "group still has %d members",
	      pvm_gsize("mhgrp"));
	free(kids), free(g);
	return t_done("group");
}

/* ---- mbox ---- */

static int mbox_main(const char *hname)
{
	int v[3] = {7, -8, 9}, c = 0,
	    par = pvm_mytid(); /* names carry our tid */
	int mb = pvm_mkbuf(PvmDataDefault);
	int old = pvm_setsbuf(mb);
	pvm_pkint(v, 3, 1);
	pvm_pkstr("from the first host");
	pvm_setsbuf(old);
	EQ(pvm_putinfo(mbname("mh.a", par), mb, PvmMboxDefault), 0);
	int n = spawn_on("mbox", PvmTaskHost, hname, 1, &c, NULL);
	CHECK(n == 1, "spawn on %s: %d t%x", hname, n, (unsigned)c);
	if (n != 1)
		return t_done("mbox");
	int r0 = 0, b = t_recv(c, TAG_GO, WAIT);
	if (b > 0)
		pvm_upkint(&r0, 1, 1);
	CHECK(b > 0 && r0 == 1, "remote lookup of mh.a: %d %d", b, r0);
	/* the child now waits in PvmMboxWaitForInfo */
	t_msleep(300);
	int w = 4242;
	mb = pvm_mkbuf(PvmDataDefault);
	old = pvm_setsbuf(mb);
	pvm_pkint(&w, 1, 1);
	pvm_setsbuf(old);
	EQ(pvm_putinfo(mbname("mh.b", par), mb, PvmMboxDefault), 0);
	int res[3] = {0, 0, -1};
	b = t_recv(c, TAG_RES, WAIT);
	if (b > 0)
		pvm_upkint(res, 3, 1);
	CHECK(b > 0 && res[1] == 1, "remote WaitForInfo of mh.b: %d", res[1]);
	EQ(res[2], 0);
	printf("remote lookup %d wait %d put %d\n", res[0], res[1], res[2]);
	/* after the child has gone, its persistent entry is still there */
	pvm_notify(PvmTaskExit, TAG_TX, 1, &c);
	t_recv(-1, TAG_TX, WAIT);
	int who = 0;
	b = pvm_recvinfo(mbname("mh.c", par), 0, PvmMboxDefault);
	if (b > 0) {
		pvm_setrbuf(b);
		pvm_upkint(&who, 1, 1);
	}
	CHECK(b > 0 && who == c, "persistent mh.c of t%x: %d t%x", (unsigned)c,
	      b, (unsigned)who);
	printf("persistent entry of t%x: t%x\n", (unsigned)c, (unsigned)who);
	return t_done("mbox");
}

/* ---- output ---- */

static int output_main(const char *hname)
{
	int c = 0;
	pvm_catchout(stdout);
	int n = spawn_on("print", PvmTaskHost, hname, 1, &c, NULL);
	CHECK(n == 1, "spawn on %s: %d t%x", hname, n, (unsigned)c);
	printf("child t%x\n", (unsigned)c);
	fflush(stdout);
	if (n == 1) {
		pvm_notify(PvmTaskExit, TAG_TX, 1, &c);
		CHECK(t_recv(-1, TAG_TX, WAIT) > 0, "no exit notify of t%x",
		      (unsigned)c);
	}
	pvm_exit(); /* waits for the children's output */
	return t_done("output");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "child"))
		return child_main(argv);
	if (argc < 2) {
		fprintf(stderr,
			"usage: pt_mh pingall|spawn|notify|group|mbox|output ...\n");
		return 2;
	}
	const char *m = argv[1];
	if (pvm_mytid() < 0)
		return 2;
	int r;
	if (!strcmp(m, "pingall"))
		r = pingall_main(!(argc > 2 && !strcmp(argv[2], "nobig")));
	else if (!strcmp(m, "stream") && argc >= 4)
		r = stream_main(argv[2], atof(argv[3]));
	else if (!strcmp(m, "hostinfo"))
		r = hostinfo_main();
	else if (!strcmp(m, "addhosts") && argc >= 3)
		r = addhosts_main(argc - 2, argv + 2);
	else if (!strcmp(m, "grow") && argc >= 3)
		r = grow_main(argv[2]);
	else if (!strcmp(m, "lost") && argc >= 4)
		r = lost_main(argv[2], atof(argv[3]));
	else if (!strcmp(m, "hang") && argc >= 6)
		r = hang_main(argv[2], argv[3], argv[4], atof(argv[5]));
	else if (!strcmp(m, "spawn"))
		r = spawn_main(argc > 2 ? atoi(argv[2]) : 0);
	else if (!strcmp(m, "notify") && argc >= 4)
		r = notify_main(argv[2], atof(argv[3]),
				argc > 4 && !strcmp(argv[4], "add"));
	else if (!strcmp(m, "group"))
		r = group_main(argc > 2 ? atoi(argv[2]) : 1);
	else if (!strcmp(m, "mbox") && argc >= 3)
		r = mbox_main(argv[2]);
	else if (!strcmp(m, "output") && argc >= 3)
		return output_main(argv[2]);
	else {
		fprintf(stderr, "pt_mh: bad mode or arguments\n");
		return 2;
	}
	pvm_exit();
	return r;
}
