/*
 * pt_py.c - the C side of the pvm3 Python module's tests
 * (test/python/test_mixed.py): one protocol between a master and its
 * workers, spoken by this program in either role and by
 * test/python/pyworker.py as a worker, so that a Python master drives C
 * workers and a C master drives Python workers.
 *
 *   pt_py master PROGRAM N   spawns N copies of PROGRAM and runs the
 *                            protocol with each, then prints the summary
 *   pt_py worker             (spawned) the worker side
 *
 * The protocol, master to each worker (Default encoding unless said):
 *   tag 1  int n, n longs, a double d, a string s
 *          -> tag 11: long sum of the longs, double 2d, string s + "!", int n
 *   tag 2  psend of doubles -> tag 12: psend of each doubled
 *   tag 3  psend of ints    -> tag 13: psend of each plus one
 *   tag 4  string group, int count: join group, barrier(count), reduce
 *          PvmSum of 4 ints (inst + 1 each) to instance 0, barrier(count),
 *          leave; the master is instance 0 and checks the sums
 *   tag 9  exit
 * A worker that meets something else sends tag 99 with a string and
 * exits.
 */
#include "tcommon.h"

#define NDBL 1000
#define NINT 5

static int worker_fail(int parent, const char *why)
{
	pvm_initsend(PvmDataDefault);
	pvm_pkstr((char *)why);
	pvm_send(parent, 99);
	pvm_exit();
	return 1;
}

static int worker(void)
{
	int parent = pvm_parent();
	if (parent < 0)
		return 1;
	int n;
	long l[16], sum = 0;
	double d;
	char s[256], group[64];
	if (pvm_recv(parent, 1) < 0 || pvm_upkint(&n, 1, 1) < 0 || n < 0 ||
	    n > 16 || pvm_upklong(l, n, 1) < 0 || pvm_upkdouble(&d, 1, 1) < 0 ||
	    pvm_upkstr(s) < 0 || strlen(s) > sizeof s - 2)
		return worker_fail(parent, "tag 1: unpack failed");
	for (int i = 0; i < n; i++)
		sum += l[i];
	strcat(s, "!");
	d *= 2;
	pvm_initsend(PvmDataDefault);
	pvm_pklong(&sum, 1, 1);
	pvm_pkdouble(&d, 1, 1);
	pvm_pkstr(s);
	pvm_pkint(&n, 1, 1);
	pvm_send(parent, 11);

	static double dv[NDBL];
	int atid, atag, alen;
	if (pvm_precv(parent, 2, dv, NDBL, PVM_DOUBLE, &atid, &atag, &alen) <
		    0 ||
	    alen % (int)sizeof(double))
		return worker_fail(parent, "tag 2: precv failed");
	int nd = alen / (int)sizeof(double);
	for (int i = 0; i < nd; i++)
		dv[i] *= 2;
	pvm_psend(parent, 12, dv, nd, PVM_DOUBLE);

	int iv[NINT];
	if (pvm_precv(parent, 3, iv, NINT, PVM_INT, &atid, &atag, &alen) < 0)
		return worker_fail(parent, "tag 3: precv failed");
	int ni = alen / (int)sizeof(int);
	for (int i = 0; i < ni; i++)
		iv[i]++;
	pvm_psend(parent, 13, iv, ni, PVM_INT);

	int count;
	if (pvm_recv(parent, 4) < 0 || pvm_upkstr(group) < 0 ||
	    pvm_upkint(&count, 1, 1) < 0)
		return worker_fail(parent, "tag 4: unpack failed");
	int inst = pvm_joingroup(group);
	if (inst < 0)
		return worker_fail(parent, "joingroup failed");
	if (pvm_barrier(group, count) < 0)
		return worker_fail(parent, "barrier failed");
	int r[4] = {inst + 1, inst + 1, inst + 1, inst + 1};
	if (pvm_reduce(PvmSum, r, 4, PVM_INT, 5, group, 0) < 0)
		return worker_fail(parent, "reduce failed");
	if (pvm_barrier(group, count) < 0)
		return worker_fail(parent, "second barrier failed");
	pvm_lvgroup(group);

	if (pvm_recv(parent, 9) < 0)
		return worker_fail(parent, "tag 9: recv failed");
	pvm_exit();
	return 0;
}

/* A worker's report of tag 99, if one came instead of `tag`. */
static int expect(int tid, int tag)
{
	int b = t_recv(tid, -1, 30);
	int bytes, mtag, src;
	if (b <= 0) {
		CHECK(0, "no message tag %d from t%x", tag, tid);
		return 0;
	}
	pvm_bufinfo(b, &bytes, &mtag, &src);
	if (mtag == 99) {
		char s[256] = "";
		pvm_upkstr(s);
		CHECK(0, "worker t%x: %s", tid, s);
		return 0;
	}
	EQ(mtag, tag);
	return mtag == tag;
}

static int master(const char *prog, int n)
{
	int tids[32];
	if (n < 1 || n > 32)
		return 2;
	char *av[] = {"worker", NULL};
	int numt = pvm_spawn((char *)prog, av, PvmTaskDefault, NULL, n, tids);
	EQ(numt, n);
	if (numt != n)
		return t_done("pt_py master");
	pvm_notify(PvmTaskExit, 50, n, tids);
	for (int w = 0; w < n; w++) {
		int t = tids[w];
		long l[3] = {1, 2000000000L, -5 - w};
		double d = 1.25 + w;
		int three = 3;
		char s[64];
		snprintf(s, sizeof s, "worker %d", w);
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&three, 1, 1);
		pvm_pklong(l, 3, 1);
		pvm_pkdouble(&d, 1, 1);
		pvm_pkstr(s);
		pvm_send(t, 1);
		if (!expect(t, 11))
			continue;
		long sum = 0;
		double d2 = 0;
		char s2[80] = "";
		int n2 = 0;
		pvm_upklong(&sum, 1, 1);
		pvm_upkdouble(&d2, 1, 1);
		pvm_upkstr(s2);
		pvm_upkint(&n2, 1, 1);
		EQ(sum, 1 + 2000000000L - 5 - w);
		CHECK(d2 == 2 * d, "double %g, expected %g", d2, 2 * d);
		strcat(s, "!");
		CHECK(!strcmp(s2, s), "string '%s', expected '%s'", s2, s);
		EQ(n2, 3);

		static double dv[NDBL], back[NDBL];
		for (int i = 0; i < NDBL; i++)
			dv[i] = i * 0.5 + w;
		pvm_psend(t, 2, dv, NDBL, PVM_DOUBLE);
		int atid, atag, alen;
		EQ(pvm_precv(t, 12, back, NDBL, PVM_DOUBLE, &atid, &atag,
			     &alen),
		   0);
		EQ(alen, NDBL * (int)sizeof(double));
		int bad = 0;
		for (int i = 0; i < NDBL; i++)
			bad += back[i] != 2 * dv[i];
		EQ(bad, 0);

		int iv[NINT] = {-2, -1, 0, 1, 2147483646}, ib[NINT];
		pvm_psend(t, 3, iv, NINT, PVM_INT);
		EQ(pvm_precv(t, 13, ib, NINT, PVM_INT, &atid, &atag, &alen), 0);
		for (int i = 0; i < NINT; i++)
			EQ(ib[i], iv[i] + 1);
	}
	/* every worker and the master in one group */
	char group[] = "pt_py";
	EQ(pvm_joingroup(group), 0);
	int count = n + 1;
	pvm_initsend(PvmDataDefault);
	pvm_pkstr(group);
	pvm_pkint(&count, 1, 1);
	pvm_mcast(tids, n, 4);
	EQ(pvm_barrier(group, count), 0);
	int r[4] = {1, 1, 1, 1};
	EQ(pvm_reduce(PvmSum, r, 4, PVM_INT, 5, group, 0), 0);
	for (int i = 0; i < 4; i++)
		EQ(r[i], count * (count + 1) / 2);
	EQ(pvm_barrier(group, count), 0);
	pvm_lvgroup(group);

	pvm_initsend(PvmDataDefault);
	pvm_mcast(tids, n, 9);
	for (int w = 0; w < n; w++) {
		int b = t_recv(-1, 50, 30);
		CHECK(b > 0, "exit notify %d of %d", w + 1, n);
	}
	pvm_exit();
	return t_done("pt_py master");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "worker"))
		return worker();
	if (argc == 4 && !strcmp(argv[1], "master"))
		return master(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: pt_py master PROGRAM N | pt_py worker\n");
	return 2;
}
