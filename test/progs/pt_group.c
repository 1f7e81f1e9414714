/*
 * pt_group.c - dynamic groups (test/group.bats).  Usage: pt_group MODE ARGS...
 *
 *   api                 one task (and a puppet): every function's codes,
 *                       printed one per line for bats to compare
 *   reuse               instance numbers: lowest free one reused
 *   exitleave           members that exit or are killed leave their groups
 *   barrierpart         5 members, barriers with count 3
 *   barrierkill HOW     3 members; while two wait in a barrier the third
 *                       (HOW =) kill9: kills itself with SIGKILL, pvmkill:
 *                       is killed with pvm_kill, leave: leaves,
 *                       frozenleave: leaves a frozen group
 *   reducekill N V      N members, instance V dies while the root (0)
 *                       waits in pvm_reduce (gatherkill: in pvm_gather;
 *                       scatterkill: V is the root of a pvm_scatter)
 *   spmd MODE N ARGS    N members (this task and N-1 spawned copies) run
 *                       MODE: reduce, reduceu (unsigned types), scatgath,
 *                       bcast, barriers R, freeze, reducebig COUNT,
 *                       reduceseq ROUNDS, isolation;
 *                       the copies send their check counts back, failures
 *                       come through pvm_catchout
 *   puppet GROUP|-      spawned: joins GROUP (- : none), obeys commands
 *   child MODE N ARGS   spawned by spmd
 * The spmd and child modes are in pt_group_spmd.c.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "tcommon.h"
#include "pt_group.h"

#define TAG_CMD	  2
#define TAG_REPLY 3

const char *self_name = "pt_group";

enum {
	C_JOIN = 1,
	C_LEAVE,
	C_BARRIER,
	C_EXIT,
	C_DIE,
	C_PVMKILL,
	C_REDUCE,
	C_FREEZE,
	C_GSIZE,
	C_GATHER,
	C_SCATTER
};

/* ---------- puppets: spawned members driven by commands ---------- */

static int puppet_main(const char *group)
{
	int me = pvm_mytid(), parent = pvm_parent();
	int inst = -1;
	if (strcmp(group, "-") != 0)
		inst = pvm_joingroup((char *)group);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&inst, 1, 1);
	pvm_send(parent, TAG_REPLY);
	for (;;) {
		int cmd = 0, a = 0, ms = 0, rc = 0;
		char g[64] = "";
		if (pvm_recv(parent, TAG_CMD) < 0)
			return 1;
		pvm_upkint(&cmd, 1, 1);
		pvm_upkint(&a, 1, 1);
		pvm_upkint(&ms, 1, 1);
		pvm_upkstr(g);
		if (ms > 0)
			t_msleep(ms);
		switch (cmd) {
		case C_JOIN:
			rc = pvm_joingroup(g);
			break;
		case C_LEAVE:
			rc = pvm_lvgroup(g);
			break;
		case C_BARRIER:
			rc = pvm_barrier(g, a);
			break;
		case C_EXIT:
			pvm_exit();
			exit(0);
		case C_DIE:
			raise(SIGKILL);
			break;
		case C_PVMKILL:
			rc = pvm_kill(a);
			break;
		case C_REDUCE: {
			int v = me & 0xff;
			rc = pvm_reduce(PvmSum, &v, 1, PVM_INT, 77, g, a);
			break;
		}
		case C_GATHER: {
			int v = me & 0xff, res[64];
			rc = pvm_gather(res, &v, 1, PVM_INT, 78, g, a);
			break;
		}
		case C_SCATTER: {
			int v = 0, data[64] = {0};
			rc = pvm_scatter(&v, data, 1, PVM_INT, 79, g, a);
			break;
		}
		case C_FREEZE:
			rc = pvm_freezegroup(g, a);
			break;
		case C_GSIZE:
			rc = pvm_gsize(g);
			break;
		}
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&rc, 1, 1);
		pvm_send(parent, TAG_REPLY);
	}
}

/* Starts a puppet that joins group (or "-"); returns its tid, its
 * instance in *inst. */
static int puppet(const char *group, int *inst)
{
	char *av[] = {"puppet", (char *)group, NULL};
	int tid = 0;
	int n = pvm_spawn((char *)self_name, av, PvmTaskDefault, "", 1, &tid);
	if (n != 1) {
		printf("spawn puppet: %d %d\n", n, tid);
		return -1;
	}
	int v = -999;
	if (t_recv(tid, TAG_REPLY, 20) > 0)
		pvm_upkint(&v, 1, 1);
	if (inst)
		*inst = v;
	return tid;
}

static void order(int tid, int cmd, int a, int ms, const char *g)
{
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&cmd, 1, 1);
	pvm_pkint(&a, 1, 1);
	pvm_pkint(&ms, 1, 1);
	pvm_pkstr((char *)g);
	pvm_send(tid, TAG_CMD);
}

/* A puppet's reply, or -999 when none comes within secs. */
static int reply(int tid, double secs)
{
	int v = -999;
	if (t_recv(tid, TAG_REPLY, secs) > 0)
		pvm_upkint(&v, 1, 1);
	return v;
}

static int ask(int tid, int cmd, int a, const char *g)
{
	order(tid, cmd, a, 0, g);
	return reply(tid, 20);
}

int gsize_until(const char *g, int want, double secs)
{
	double end = t_now() + secs;
	int n;
	while ((n = pvm_gsize((char *)g)) != want && t_now() < end)
		t_msleep(50);
	return n;
}

/* ---------- one task: the codes of every function ---------- */

static void dummy_func(int *dt, void *x, void *y, int *n, int *info)
{
	(void)dt, (void)x, (void)y, (void)n;
	*info = 0;
}

static int api_main(void)
{
	int me = pvm_mytid();
	pvm_setopt(PvmAutoErr, 0);
	int v[4] = {1, 2, 3, 4}, r[16];
	P("gsize before any group %d\n", pvm_gsize("g"));
	P("join g %d\n", pvm_joingroup("g"));
	P("join g again %d\n", pvm_joingroup("g"));
	P("join h %d\n", pvm_joingroup("h"));
	P("join empty %d\n", pvm_joingroup(""));
	P("join NULL %d\n", pvm_joingroup(NULL));
	P("gsize g %d\n", pvm_gsize("g"));
	P("gsize nope %d\n", pvm_gsize("nope"));
	P("gsize empty %d\n", pvm_gsize(""));
	P("gsize NULL %d\n", pvm_gsize(NULL));
	P("gettid g 0 is me %d\n", pvm_gettid("g", 0) == me);
	P("gettid g 1 %d\n", pvm_gettid("g", 1));
	P("gettid g -1 %d\n", pvm_gettid("g", -1));
	P("gettid nope 0 %d\n", pvm_gettid("nope", 0));
	P("gettid NULL 0 %d\n", pvm_gettid(NULL, 0));
	P("getinst g me %d\n", pvm_getinst("g", me));
	P("getinst g 0x40999 %d\n", pvm_getinst("g", 0x40999));
	P("getinst nope me %d\n", pvm_getinst("nope", me));
	P("getinst NULL me %d\n", pvm_getinst(NULL, me));

	/* a group this task is not in, held by a puppet */
	int pi = -1;
	int p = puppet("other", &pi);
	P("puppet joins other %d\n", pi);
	P("gsize other %d\n", pvm_gsize("other"));
	P("getinst other me %d\n", pvm_getinst("other", me));
	P("getinst other puppet %d\n", pvm_getinst("other", p));
	P("gettid other 0 is puppet %d\n", pvm_gettid("other", 0) == p);
	P("lvgroup other %d\n", pvm_lvgroup("other"));
	P("lvgroup nope %d\n", pvm_lvgroup("nope"));
	P("lvgroup NULL %d\n", pvm_lvgroup(NULL));
	P("lvgroup empty %d\n", pvm_lvgroup(""));
	P("barrier other 1 %d\n", pvm_barrier("other", 1));
	P("barrier nope 1 %d\n", pvm_barrier("nope", 1));
	P("barrier NULL 1 %d\n", pvm_barrier(NULL, 1));
	P("barrier g 1 %d\n", pvm_barrier("g", 1));
	P("barrier g -1 %d\n", pvm_barrier("g", -1));
	P("barrier g 0 %d\n", pvm_barrier("g", 0));
	P("barrier g -2 %d\n", pvm_barrier("g", -2));
	/* the reference fails every later barrier of the group: not ours */
	P("barrier g 1 after a bad count %d\n", pvm_barrier("g", 1));

	/* bcast: to a group of one, the sender excluded; from a non-member */
	pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 1, 1);
	P("bcast g %d\n", pvm_bcast("g", 40));
	P("bcast g reached me %d\n", t_recv(-1, 40, 0.5) > 0);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 1, 1);
	P("bcast other (not member) %d\n", pvm_bcast("other", 41));
	order(p, C_GSIZE, 0, 0, "other");
	P("puppet gsize other %d\n", reply(p, 20));
	P("bcast nope %d\n", pvm_bcast("nope", 41));
	P("bcast NULL %d\n", pvm_bcast(NULL, 41));
	P("bcast g tag -1 %d\n", pvm_bcast("g", -1));

	/* reduce, scatter, gather in a group of one and their errors */
	int d[4] = {5, -6, 7, 8};
	P("reduce g sum %d\n", pvm_reduce(PvmSum, d, 4, PVM_INT, 50, "g", 0));
	P("reduce g result %d %d %d %d\n", d[0], d[1], d[2], d[3]);
	P("reduce g root 1 %d\n",
	  pvm_reduce(PvmSum, d, 4, PVM_INT, 50, "g", 1));
	P("reduce g root -1 %d\n",
	  pvm_reduce(PvmSum, d, 4, PVM_INT, 50, "g", -1));
	P("reduce g count 0 %d\n",
	  pvm_reduce(PvmSum, d, 0, PVM_INT, 50, "g", 0));
	P("reduce g count -1 %d\n",
	  pvm_reduce(PvmSum, d, -1, PVM_INT, 50, "g", 0));
	P("reduce g NULL data %d\n",
	  pvm_reduce(PvmSum, NULL, 4, PVM_INT, 50, "g", 0));
	P("reduce g NULL func %d\n",
	  pvm_reduce(NULL, d, 4, PVM_INT, 50, "g", 0));
	P("reduce g user func %d\n",
	  pvm_reduce(dummy_func, d, 4, PVM_INT, 50, "g", 0));
	P("reduce g tag -1 %d\n",
	  pvm_reduce(PvmSum, d, 4, PVM_INT, -1, "g", 0));
	P("reduce other %d\n",
	  pvm_reduce(PvmSum, d, 4, PVM_INT, 50, "other", 0));
	P("reduce nope %d\n", pvm_reduce(PvmSum, d, 4, PVM_INT, 50, "nope", 0));
	P("reduce NULL group %d\n",
	  pvm_reduce(PvmSum, d, 4, PVM_INT, 50, NULL, 0));
	P("scatter g %d\n", pvm_scatter(r, v, 4, PVM_INT, 51, "g", 0));
	P("scatter g result %d %d %d %d\n", r[0], r[1], r[2], r[3]);
	P("scatter g root 1 %d\n", pvm_scatter(r, v, 4, PVM_INT, 51, "g", 1));
	P("scatter g count 0 %d\n", pvm_scatter(r, v, 0, PVM_INT, 51, "g", 0));
	P("scatter g NULL result %d\n",
	  pvm_scatter(NULL, v, 4, PVM_INT, 51, "g", 0));
	P("scatter other %d\n", pvm_scatter(r, v, 4, PVM_INT, 51, "other", 0));
	P("scatter nope %d\n", pvm_scatter(r, v, 4, PVM_INT, 51, "nope", 0));
	memset(r, 0, sizeof r);
	P("gather g %d\n", pvm_gather(r, v, 4, PVM_INT, 52, "g", 0));
	P("gather g result %d %d %d %d\n", r[0], r[1], r[2], r[3]);
	P("gather g root 1 %d\n", pvm_gather(r, v, 4, PVM_INT, 52, "g", 1));
	P("gather g count 0 %d\n", pvm_gather(r, v, 0, PVM_INT, 52, "g", 0));
	P("gather g NULL data %d\n",
	  pvm_gather(r, NULL, 4, PVM_INT, 52, "g", 0));
	P("gather other %d\n", pvm_gather(r, v, 4, PVM_INT, 52, "other", 0));
	P("gather nope %d\n", pvm_gather(r, v, 4, PVM_INT, 52, "nope", 0));

	/* freezegroup */
	P("freeze other (not member) %d\n", pvm_freezegroup("other", -1));
	P("freeze nope %d\n", pvm_freezegroup("nope", -1));
	P("freeze NULL %d\n", pvm_freezegroup(NULL, -1));
	P("freeze h %d\n", pvm_freezegroup("h", -1));
	P("freeze h again %d\n", pvm_freezegroup("h", -1));
	P("gsize h frozen %d\n", pvm_gsize("h"));
	P("gettid h 0 is me %d\n", pvm_gettid("h", 0) == me);
	P("barrier h frozen %d\n", pvm_barrier("h", 1));

	/* leaving */
	P("lvgroup g %d\n", pvm_lvgroup("g"));
	P("lvgroup g again %d\n", pvm_lvgroup("g"));
	P("gsize g after its last member left %d\n", pvm_gsize("g"));
	P("gettid g 0 after leave %d\n", pvm_gettid("g", 0));
	P("getinst g me after leave %d\n", pvm_getinst("g", me));
	P("rejoin g %d\n", pvm_joingroup("g"));
	P("lvgroup h %d\n", pvm_lvgroup("h"));
	order(p, C_EXIT, 0, 0, "");
	pvm_exit();
	return 0;
}

/* ---------- the cap on memberships (docs/limits.md) ---------- */

/* Joins groups j0, j1... until refused: 4096, then PvmOutOfRes; leaving
 * one makes room for one. */
static int joincap_main(void)
{
	char name[32];
	int n = 0, st = 0;
	while (n < 100000) {
		snprintf(name, sizeof name, "j%d", n);
		if ((st = pvm_joingroup(name)) < 0)
			break;
		n++;
	}
	P("joined %d code %d\n", n, st);
	P("leave j0 %d\n", pvm_lvgroup("j0"));
	P("join x %d\n", pvm_joingroup("x"));
	P("join y %d\n", pvm_joingroup("y"));
	pvm_exit();
	return 0;
}

/* ---------- instance numbers ---------- */

static int reuse_main(void)
{
	P("me join %d\n", pvm_joingroup("g"));
	int i1, i2, i3, i4;
	int p1 = puppet("g", &i1), p2 = puppet("g", &i2), p3 = puppet("g", &i3);
	P("puppets join %d %d %d\n", i1, i2, i3);
	P("p2 leaves %d\n", ask(p2, C_LEAVE, 0, "g"));
	P("gsize %d\n", pvm_gsize("g"));
	P("gettid 2 %d\n", pvm_gettid("g", 2));
	P("getinst p2 %d\n", pvm_getinst("g", p2));
	int p4 = puppet("g", &i4);
	P("new puppet joins %d\n", i4);
	P("gettid 2 is it %d\n", pvm_gettid("g", 2) == p4);
	P("me leave %d\n", pvm_lvgroup("g"));
	P("p1 leaves %d\n", ask(p1, C_LEAVE, 0, "g"));
	P("gsize %d\n", pvm_gsize("g"));
	P("p2 joins %d\n", ask(p2, C_JOIN, 0, "g"));
	P("me join %d\n", pvm_joingroup("g"));
	P("p1 joins %d\n", ask(p1, C_JOIN, 0, "g"));
	P("gettid 0 1 2 3 4 ok %d\n",
	  pvm_gettid("g", 0) == p2 && pvm_gettid("g", 1) == pvm_mytid() &&
		  pvm_gettid("g", 2) == p4 && pvm_gettid("g", 3) == p3 &&
		  pvm_gettid("g", 4) == p1);
	P("p3 leaves %d\n", ask(p3, C_LEAVE, 0, "g"));
	P("p4 leaves %d\n", ask(p4, C_LEAVE, 0, "g"));
	P("p4 joins %d\n", ask(p4, C_JOIN, 0, "g"));
	P("p3 joins %d\n", ask(p3, C_JOIN, 0, "g"));
	P("gsize %d\n", pvm_gsize("g"));
	P("gettid 4 is p1 %d\n", pvm_gettid("g", 4) == p1);
	int ps[] = {p1, p2, p3, p4};
	for (int i = 0; i < 4; i++)
		order(ps[i], C_EXIT, 0, 0, "");
	pvm_exit();
	return 0;
}

/* ---------- exit and kill leave the groups ---------- */

static int exitleave_main(void)
{
	int me = pvm_mytid();
	P("me join %d\n", pvm_joingroup("g"));
	int i1, i2, i3, i4;
	int p1 = puppet("g", &i1), p2 = puppet("g", &i2);
	P("puppets join %d %d\n", i1, i2);
	P("p1 joins h %d\n", ask(p1, C_JOIN, 0, "h"));
	P("me join h %d\n", pvm_joingroup("h"));
	/* p1 exits (pvm_exit) without leaving */
	order(p1, C_EXIT, 0, 0, "");
	P("gsize g after p1 exit %d\n", gsize_until("g", 2, 10));
	P("gsize h after p1 exit %d\n", gsize_until("h", 1, 10));
	P("gettid g 1 %d\n", pvm_gettid("g", 1));
	P("getinst h me %d\n", pvm_getinst("h", me));
	int p3 = puppet("g", &i3);
	P("next joins %d\n", i3);
	/* p2 killed by pvm_kill */
	P("pvm_kill p2 %d\n", pvm_kill(p2));
	P("gsize g after pvm_kill %d\n", gsize_until("g", 2, 10));
	P("gettid g 2 %d\n", pvm_gettid("g", 2));
	/* p3 killed by SIGKILL */
	order(p3, C_DIE, 0, 0, "");
	P("gsize g after SIGKILL %d\n", gsize_until("g", 1, 10));
	P("gettid g 1 %d\n", pvm_gettid("g", 1));
	p3 = puppet("g", &i3);
	int p4 = puppet("g", &i4);
	P("next join %d %d\n", i3, i4);
	/* a puppet that exits from inside its only group leaves no group */
	int i5;
	int p5 = puppet("solo", &i5);
	P("solo join %d gsize %d\n", i5, pvm_gsize("solo"));
	order(p5, C_EXIT, 0, 0, "");
	double end = t_now() + 10;
	int n;
	while ((n = pvm_gsize("solo")) > 0 && t_now() < end)
		t_msleep(50);
	P("gsize solo after its member exited %d\n", n);
	order(p3, C_EXIT, 0, 0, "");
	order(p4, C_EXIT, 0, 0, "");
	pvm_exit();
	return 0;
}

/* ---------- barriers with a count smaller than the group ---------- */

static int barrierpart_main(void)
{
	P("me join %d\n", pvm_joingroup("g"));
	int p[4], in[4];
	for (int i = 0; i < 4; i++)
		p[i] = puppet("g", &in[i]);
	P("gsize %d\n", pvm_gsize("g"));
	for (int i = 0; i < 3; i++)
		order(p[i], C_BARRIER, 3, 0, "g");
	for (int i = 0; i < 3; i++)
		P("p%d barrier 3: %d\n", i + 1, reply(p[i], 10));
	order(p[3], C_BARRIER, 3, 0, "g");
	P("p4 alone after 0.5 s: %d\n", reply(p[3], 0.5));
	order(p[0], C_BARRIER, 3, 0, "g");
	P("p1 with p4 after 0.5 s: %d\n", reply(p[0], 0.5));
	order(p[1], C_BARRIER, 3, 0, "g");
	int r4 = reply(p[3], 10), r1 = reply(p[0], 10);
	P("p2 with p1 and p4: %d %d %d\n", r4, r1, reply(p[1], 10));
	order(p[2], C_BARRIER, 3, 0, "g");
	order(p[3], C_BARRIER, 3, 0, "g");
	P("me with p3 and p4: %d\n", pvm_barrier("g", 3));
	int r3 = reply(p[2], 10);
	P("p3 p4: %d %d\n", r3, reply(p[3], 10));
	for (int i = 0; i < 4; i++)
		order(p[i], C_EXIT, 0, 0, "");
	pvm_exit();
	return 0;
}

/* ---------- a member lost during a barrier or a reduce ---------- */

static int barrierkill_main(const char *how)
{
	int frozen = !strcmp(how, "frozenleave");
	P("me join %d\n", pvm_joingroup("g"));
	int i1, i2, i3;
	int p1 = puppet("g", &i1), p2 = puppet("g", &i2), p3 = puppet("-", &i3);
	P("puppets join %d %d %d\n", i1, i2, i3);
	if (frozen) {
		order(p1, C_FREEZE, 3, 0, "g");
		order(p2, C_FREEZE, 3, 0, "g");
		int f0 = pvm_freezegroup("g", 3), f1 = reply(p1, 10);
		P("freeze %d %d %d\n", f0, f1, reply(p2, 10));
	}
	order(p1, C_BARRIER, 3, 0, "g");
	if (!strcmp(how, "kill9"))
		order(p2, C_DIE, 0, 600, "");
	else if (!strcmp(how, "pvmkill"))
		order(p3, C_PVMKILL, p2, 600, "");
	else
		order(p2, C_LEAVE, 0, 600, "g");
	double t0 = t_now();
	int rc = pvm_barrier("g", 3);
	double dt = t_now() - t0;
	P("barrier %d after %s\n", rc,
	  dt < 0.5  ? "less than 0.5 s"
	  : dt < 10 ? "0.5 to 10 s"
		    : "more than 10 s");
	P("other waiter %d\n", reply(p1, 10));
	if (frozen) {
		P("p2 left %d\n", reply(p2, 10));
		P("later barrier %d\n", pvm_barrier("g", 2));
	} else {
		P("gsize %d\n", pvm_gsize("g"));
	}
	order(p1, C_EXIT, 0, 0, "");
	order(p2, C_EXIT, 0, 0, "");
	order(p3, C_EXIT, 0, 0, "");
	pvm_exit();
	return 0;
}

/* reducekill/gatherkill/scatterkill: the collective `op` (C_REDUCE,
 * C_GATHER with root 0, C_SCATTER with root `victim`) while instance
 * `victim` dies */
static int reducekill_main(int op, int n, int victim)
{
	P("me join %d\n", pvm_joingroup("g"));
	int p[64] = {0}, in[64], bad = 0;
	if (n < 2 || n > 64 || victim < 1 || victim >= n)
		return 2;
	for (int i = 1; i < n; i++) {
		p[i] = puppet("g", &in[i]);
		bad += in[i] != i;
	}
	P("puppets join in order %s\n", bad ? "no" : "yes");
	/* scatter: the root dies, the others wait for their part */
	int root = op == C_SCATTER ? victim : 0;
	order(p[victim], C_DIE, 0, 600, "");
	for (int i = 1; i < n; i++)
		if (i != victim)
			order(p[i], op, root, 0, "g");
	int v[64] = {1}, rc;
	const char *what = op == C_REDUCE   ? "reduce"
			   : op == C_GATHER ? "gather"
					    : "scatter";
	double t0 = t_now();
	if (op == C_REDUCE)
		rc = pvm_reduce(PvmSum, v, 1, PVM_INT, 77, "g", 0);
	else if (op == C_GATHER)
		rc = pvm_gather(v, v, 1, PVM_INT, 78, "g", 0);
	else
		rc = pvm_scatter(v, v, 1, PVM_INT, 79, "g", root);
	double dt = t_now() - t0;
	P("%s %s after %s\n", what, rc < 0 ? "error" : "success",
	  dt < 0.5  ? "less than 0.5 s"
	  : dt < 10 ? "0.5 to 10 s"
		    : "more than 10 s");
	int back = 0;
	for (int i = 1; i < n; i++)
		if (i != victim)
			back += reply(p[i], 10) != -999;
	P("the others returned: %d of %d\n", back, n - 2);
	for (int i = 1; i < n; i++)
		if (i != victim)
			order(p[i], C_EXIT, 0, 0, "");
	pvm_exit();
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: pt_group MODE ARGS...\n");
		return 2;
	}
	const char *m = argv[1];
	int rc = 2;
	/* the scenarios print error codes themselves */
	if (strcmp(m, "spmd") && strcmp(m, "child"))
		pvm_setopt(PvmAutoErr, 0);
	if (!strcmp(m, "puppet") && argc == 3)
		rc = puppet_main(argv[2]);
	else if (!strcmp(m, "api"))
		rc = api_main();
	else if (!strcmp(m, "reuse"))
		rc = reuse_main();
	else if (!strcmp(m, "joincap"))
		rc = joincap_main();
	else if (!strcmp(m, "exitleave"))
		rc = exitleave_main();
	else if (!strcmp(m, "barrierpart"))
		rc = barrierpart_main();
	else if (!strcmp(m, "barrierkill") && argc == 3)
		rc = barrierkill_main(argv[2]);
	else if (!strcmp(m, "reducekill") && argc == 4)
		rc = reducekill_main(C_REDUCE, atoi(argv[2]), atoi(argv[3]));
	else if (!strcmp(m, "gatherkill") && argc == 4)
		rc = reducekill_main(C_GATHER, atoi(argv[2]), atoi(argv[3]));
	else if (!strcmp(m, "scatterkill") && argc == 4)
		rc = reducekill_main(C_SCATTER, atoi(argv[2]), atoi(argv[3]));
	else if ((!strcmp(m, "spmd") || !strcmp(m, "child")) && argc >= 4)
		rc = spmd_main(!strcmp(m, "child"), argv[2], atoi(argv[3]),
			       argc - 4, argv + 4);
	else
		fprintf(stderr, "pt_group: bad arguments\n");
	return rc;
}
