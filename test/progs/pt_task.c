/*
 * pt_task - task-level tests: enrollment, information calls, options,
 * spawn, kill, notify, contexts and halt.  Usage: pt_task <test>; the
 * program spawns copies of itself ("pt_task child <role> ...") as partners.
 * Prints FAIL lines and a summary; exits 1 when a check failed.
 */
#include <errno.h>
#include <signal.h>
#include <sys/types.h>

#include "tcommon.h"

#define ME	   "pt_task"
#define TAG_REPORT 10
#define TAG_READY  11
#define TAG_GO	   12
#define TAG_NOTIFY 40

static int spawn1(char **argv, int flag, char *where)
{
	int tid = 0;
	int n = pvm_spawn(ME, argv, flag, where, 1, &tid);
	CHECK(n == 1 && tid > 0, "spawn %s %s: n=%d tid=%d",
	      argv ? argv[1] : "", where ? where : "", n, tid);
	return n == 1 ? tid : -1;
}

/* ---- children ---- */

static int child_report(char **av, int ac)
{
	int master = (int)strtol(av[3], NULL, 16);
	int *sibs = NULL, nsib, i;
	const char *envs[] = {"PT_EXPORT_A", "PT_EXPORT_B", "PT_NOT_EXPORTED"};
	int me = pvm_mytid();
	int par = pvm_parent();
	nsib = pvm_siblings(&sibs);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&me, 1, 1);
	pvm_pkint(&par, 1, 1);
	int ctx = pvm_getcontext();
	pvm_pkint(&ctx, 1, 1);
	int pid = getpid();
	pvm_pkint(&pid, 1, 1);
	pvm_pkint(&ac, 1, 1);
	for (i = 0; i < ac; i++)
		pvm_pkstr(av[i]);
	pvm_pkint(&nsib, 1, 1);
	for (i = 0; i < nsib; i++)
		pvm_pkint(&sibs[i], 1, 1);
	for (i = 0; i < 3; i++) {
		const char *v = getenv(envs[i]);
		pvm_pkstr((char *)(v ? v : "(unset)"));
	}
	pvm_send(master, TAG_REPORT);
	/* Stay until told to go, so that the parent can inspect pvm_tasks. */
	t_recv(master, TAG_GO, 30);
	pvm_exit();
	return 0;
}

/* "nsib MASTER": sends the master its sibling list at once. */
static int child_nsib(char **av)
{
	int master = (int)strtol(av[3], NULL, 16);
	int *sibs = NULL;
	int nsib = pvm_siblings(&sibs);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&nsib, 1, 1);
	if (nsib > 0)
		pvm_pkint(sibs, nsib, 1);
	pvm_send(master, TAG_REPORT);
	pvm_exit();
	return 0;
}

static int child_main(int ac, char **av)
{
	const char *role = av[2];
	if (!strcmp(role, "report"))
		return child_report(av, ac);
	if (!strcmp(role, "nsib"))
		return child_nsib(av);
	int me = pvm_mytid();
	if (me < 0)
		return 2;
	if (!strcmp(role, "exit")) {
		pvm_exit();
		return 0;
	}
	if (!strcmp(role, "print")) { /* output for the pvmd log */
		printf("hello from child t%x\n", me);
		fflush(stdout);
		fprintf(stderr, "stderr line from t%x\n", me);
		pvm_exit();
		return 0;
	}
	if (!strcmp(role,
		    "exitnopvm")) /* no pvm_exit: the socket just closes */
		return 0;
	if (!strcmp(role, "segv")) {
		t_msleep(100);
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		return 3;
	}
	if (!strcmp(role, "wait")) {
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&me, 1, 1);
		pvm_send(pvm_parent(), TAG_READY);
		pvm_recv(-1, 12345); /* until killed */
		return 0;
	}
	if (!strcmp(role, "ctx")) {
		/* Report our starting context, then send one message with tag 1
		 * in each context the parent names, carrying the context
		 * number. */
		int par = pvm_parent(), n, c[8], i;
		int ctx = pvm_getcontext();
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&ctx, 1, 1);
		pvm_send(par, TAG_REPORT);
		if (t_recv(par, TAG_GO, 30) <= 0)
			return 4;
		pvm_upkint(&n, 1, 1);
		if (n < 0 || n > 8)
			return 5;
		pvm_upkint(c, n, 1);
		for (i = 0; i < n; i++) {
			pvm_setcontext(c[i]);
			pvm_initsend(PvmDataDefault);
			pvm_pkint(&c[i], 1, 1);
			pvm_send(par, 1);
		}
		pvm_setcontext(ctx);
		t_recv(par, TAG_GO, 30);
		pvm_exit();
		return 0;
	}
	return 9;
}

/* ---- tests ---- */

static int test_nopvmd(void)
{
	double t0 = t_now();
	int tid = pvm_mytid();
	EQ(tid, PvmSysErr);
	CHECK(t_now() - t0 < 5.0, "pvm_mytid took %.1f s", t_now() - t0);
	int tids[1] = {0};
	t0 = t_now();
	int n = pvm_spawn(ME, NULL, 0, "", 1, tids);
	EQ(n, PvmSysErr);
	CHECK(t_now() - t0 < 5.0, "pvm_spawn took %.1f s", t_now() - t0);
	return t_done("nopvmd");
}

static int test_info(void)
{
	int me = pvm_mytid(), i;
	CHECK(me > 0, "mytid %d", me);
	EQ(pvm_mytid(), me);
	EQ(me & 0xc0000000, 0);
	EQ(pvm_tidtohost(me), me & 0x3ffc0000);
	EQ(pvm_tidtohost(me), 0x40000);
	EQ(pvm_parent(), PvmNoParent);

	int *sibs = NULL;
	int ns = pvm_siblings(&sibs);
	EQ(ns, 1);
	if (ns == 1)
		EQ(sibs[0], me);

	int nhost = -1, narch = -1;
	struct pvmhostinfo *hp = NULL;
	EQ(pvm_config(&nhost, &narch, &hp), 0);
	EQ(nhost, 1);
	EQ(narch, 1);
	char hn[256];
	gethostname(hn, sizeof hn);
	if (nhost == 1 && hp) {
		EQ(hp[0].hi_tid, 0x40000);
		CHECK(hp[0].hi_name && !strcmp(hp[0].hi_name, hn),
		      "hi_name %s, host %s",
		      hp[0].hi_name ? hp[0].hi_name : "(null)", hn);
		CHECK(hp[0].hi_arch && !strcmp(hp[0].hi_arch, "LINUX64"),
		      "hi_arch %s", hp[0].hi_arch ? hp[0].hi_arch : "(null)");
		EQ(hp[0].hi_speed, 1000);
		EQ(hp[0].hi_dsig, 0x408c41);
	}

	int nt = -1;
	struct pvmtaskinfo *ti = NULL;
	EQ(pvm_tasks(0, &nt, &ti), 0);
	int found = 0;
	for (i = 0; i < nt; i++)
		if (ti[i].ti_tid == me) {
			found++;
			EQ(ti[i].ti_ptid, 0);
			EQ(ti[i].ti_host, 0x40000);
			EQ(ti[i].ti_pid, getpid());
			EQ(ti[i].ti_flag, 4);
			CHECK(ti[i].ti_a_out && !strcmp(ti[i].ti_a_out, ""),
			      "a.out '%s'",
			      ti[i].ti_a_out ? ti[i].ti_a_out : "(null)");
		}
	EQ(found, 1);
	/* where = a task tid and where = the host's pvmd tid */
	EQ(pvm_tasks(me, &nt, &ti), 0);
	EQ(nt, 1);
	if (nt == 1)
		EQ(ti[0].ti_tid, me);
	EQ(pvm_tasks(0x40000, &nt, &ti), 0);
	CHECK(nt >= 1, "tasks on host: %d", nt);

	EQ(pvm_mstat(hn), PvmOk);
	EQ(pvm_mstat("no-such-host.invalid"), PvmNoHost);
	EQ(pvm_pstat(me), PvmOk);
	EQ(pvm_pstat(me + 1000), PvmNoTask);

	const char *v = pvm_version();
	CHECK(v && !strncmp(v, "3.4.", 4) && strlen(v) > 4, "version '%s'",
	      v ? v : "(null)");

	/* error strings */
	pvm_setopt(PvmAutoErr, 0);
	EQ(pvm_pstat(me + 1000), PvmNoTask);
	pvm_exit();
	return t_done("info");
}

static int test_opts(void)
{
	/* PvmPollType/PvmPollTime: PvmPollSleep after 20000 probes of the
	 * shared-memory queues (docs/shm.md); the reference has no shared
	 * memory on this host and answers PvmBadParam */
	static int defaults[26] = {
		[1] = 2,      [2] = 0,	[3] = 1,
		[10] = 4080,  [18] = 1, [19] = PvmPollSleep,
		[20] = 20000,
	};
	if (getenv("PVM_TEST_REF"))
		defaults[19] = defaults[20] = PvmBadParam;
	int me = pvm_mytid(), i;
	CHECK(me > 0, "mytid %d", me);
	for (i = 1; i <= 25; i++) {
		int v = pvm_getopt(i);
		CHECK(v == defaults[i], "getopt(%d) = %d, expected %d", i, v,
		      defaults[i]);
	}
	EQ(pvm_getopt(0), PvmBadParam);
	EQ(pvm_getopt(999), PvmBadParam);
	EQ(pvm_setopt(999, 1), PvmBadParam);
	/* setopt returns the previous value */
	EQ(pvm_setopt(PvmRoute, PvmRouteDirect), 2);
	EQ(pvm_getopt(PvmRoute), PvmRouteDirect);
	EQ(pvm_setopt(PvmRoute, PvmDontRoute), PvmRouteDirect);
	EQ(pvm_getopt(PvmRoute), PvmDontRoute);
	EQ(pvm_setopt(PvmFragSize, 65536), 4080);
	EQ(pvm_getopt(PvmFragSize), 65536);
	EQ(pvm_setopt(PvmAutoErr, 0), 1);
	EQ(pvm_getopt(PvmAutoErr), 0);
	EQ(pvm_setopt(PvmDebugMask, 0), 0);
	EQ(pvm_setopt(PvmShowTids, 0), 1);
	EQ(pvm_getopt(PvmShowTids), 0);
	/* A message still goes through with the new fragment size. */
	int big[50000];
	for (i = 0; i < 50000; i++)
		big[i] = i * 7 + 1;
	pvm_initsend(PvmDataRaw);
	pvm_pkint(big, 50000, 1);
	EQ(pvm_send(me, 3), 0);
	memset(big, 0, sizeof big);
	CHECK(t_recv(me, 3, 10) > 0, "self message lost");
	EQ(pvm_upkint(big, 50000, 1), 0);
	int bad = 0;
	for (i = 0; i < 50000; i++)
		bad += big[i] != i * 7 + 1;
	EQ(bad, 0);
	pvm_exit();
	return t_done("opts");
}

/* Reads a child's report; fills its tid, parent, ctx, pid. */
struct report {
	int tid, parent, ctx, pid, argc, nsib, sibs[8];
	char argv[8][64];
	char env[3][64];
};

static int get_report(int from, struct report *r)
{
	int i;
	memset(r, 0, sizeof *r);
	int b = t_recv(from, TAG_REPORT, 20);
	CHECK(b > 0, "no report from t%x (%d)", from, b);
	if (b <= 0)
		return -1;
	pvm_upkint(&r->tid, 1, 1);
	pvm_upkint(&r->parent, 1, 1);
	pvm_upkint(&r->ctx, 1, 1);
	pvm_upkint(&r->pid, 1, 1);
	pvm_upkint(&r->argc, 1, 1);
	for (i = 0; i < r->argc && i < 8; i++)
		pvm_upkstr(r->argv[i]);
	pvm_upkint(&r->nsib, 1, 1);
	for (i = 0; i < r->nsib && i < 8; i++)
		pvm_upkint(&r->sibs[i], 1, 1);
	for (i = 0; i < 3; i++)
		pvm_upkstr(r->env[i]);
	return 0;
}

static void send_go(int tid)
{
	pvm_initsend(PvmDataDefault);
	pvm_send(tid, TAG_GO);
}

static int test_spawn(void)
{
	int me = pvm_mytid(), i;
	char mehex[32], hn[256];
	snprintf(mehex, sizeof mehex, "%x", me);
	gethostname(hn, sizeof hn);
	char *av[] = {"child", "report", mehex, "arg with spaces",
		      "",      "last",	 NULL};
	struct report r;

	/* plain spawn, argv, parent, siblings, exported environment */
	setenv("PT_EXPORT_A", "alpha value", 1);
	setenv("PT_EXPORT_B", "beta", 1);
	setenv("PT_NOT_EXPORTED", "secret", 1);
	setenv("PVM_EXPORT", "PT_EXPORT_A", 1);
	EQ(pvm_export("PT_EXPORT_B"), 0);
	int tids[3] = {0, 0, 0};
	int n = pvm_spawn(ME, av, PvmTaskDefault, NULL, 3, tids);
	EQ(n, 3);
	for (i = 0; i < n; i++) {
		CHECK(tids[i] > 0 &&
			      pvm_tidtohost(tids[i]) == pvm_tidtohost(me),
		      "tid[%d] %x", i, tids[i]);
		if (get_report(tids[i], &r))
			continue;
		EQ(r.tid, tids[i]);
		EQ(r.parent, me);
		EQ(r.ctx, 0);
		EQ(r.argc, 7);
		CHECK(!strcmp(r.argv[1], "child") &&
			      !strcmp(r.argv[2], "report") &&
			      !strcmp(r.argv[3], mehex) &&
			      !strcmp(r.argv[4], "arg with spaces") &&
			      !strcmp(r.argv[5], "") &&
			      !strcmp(r.argv[6], "last"),
		      "argv %s|%s|%s|%s|%s|%s", r.argv[1], r.argv[2], r.argv[3],
		      r.argv[4], r.argv[5], r.argv[6]);
		EQ(r.nsib, 3);
		int k, same = 0;
		for (k = 0; k < 3 && k < r.nsib; k++)
			same += r.sibs[k] == tids[k];
		EQ(same, 3);
		CHECK(!strcmp(r.env[0], "alpha value"), "PT_EXPORT_A '%s'",
		      r.env[0]);
		CHECK(!strcmp(r.env[1], "beta"), "PT_EXPORT_B '%s'", r.env[1]);
		CHECK(!strcmp(r.env[2], "(unset)"), "PT_NOT_EXPORTED '%s'",
		      r.env[2]);
		if (i == 0) {
			/* pvm_tasks shows the child with its fields */
			int nt = 0, k2, found = 0;
			struct pvmtaskinfo *ti = NULL;
			EQ(pvm_tasks(tids[0], &nt, &ti), 0);
			for (k2 = 0; k2 < nt; k2++)
				if (ti[k2].ti_tid == tids[0]) {
					found++;
					EQ(ti[k2].ti_ptid, me);
					EQ(ti[k2].ti_host, 0x40000);
					EQ(ti[k2].ti_pid, r.pid);
					EQ(ti[k2].ti_flag & 4, 4);
					CHECK(ti[k2].ti_a_out &&
						      !strcmp(ti[k2].ti_a_out,
							      ME),
					      "child a.out '%s'",
					      ti[k2].ti_a_out ? ti[k2].ti_a_out
							      : "");
				}
			EQ(found, 1);
			EQ(pvm_pstat(tids[0]), PvmOk);
		}
	}
	for (i = 0; i < n; i++)
		send_go(tids[i]);
	unsetenv("PVM_EXPORT");
	pvm_unexport("PT_EXPORT_B");

	/* PvmTaskHost: this host by name */
	int t = spawn1(av, PvmTaskHost, hn);
	if (t > 0 && !get_report(t, &r)) {
		EQ(r.parent, me);
		send_go(t);
	}
	/* PvmTaskArch LINUX64 */
	t = spawn1(av, PvmTaskArch, "LINUX64");
	if (t > 0 && !get_report(t, &r)) {
		EQ(r.parent, me);
		send_go(t);
	}
	/* unknown host / arch */
	int bt = 0;
	n = pvm_spawn(ME, av, PvmTaskHost, "no-such-host.invalid", 1, &bt);
	CHECK(n == PvmNoHost || (n == 0 && bt == PvmNoHost),
	      "unknown host: n=%d tid=%d", n, bt);
	bt = 0;
	n = pvm_spawn(ME, av, PvmTaskArch, "NOSUCHARCH", 1, &bt);
	CHECK(n == PvmNoHost || (n == 0 && bt == PvmNoHost),
	      "unknown arch: n=%d tid=%d", n, bt);
	/* missing program */
	int mt[2] = {0, 0};
	n = pvm_spawn("pt_no_such_program", NULL, 0, NULL, 2, mt);
	EQ(n, 0);
	EQ(mt[0], PvmNoFile);
	EQ(mt[1], PvmNoFile);
	/* bad arguments */
	EQ(pvm_spawn(ME, av, 0, NULL, 0, mt), PvmBadParam);
	EQ(pvm_spawn(ME, av, 0, NULL, -1, mt), PvmBadParam);

	/* PvmNoSpawnParent: the child has no parent */
	t = spawn1(av, PvmNoSpawnParent, NULL);
	if (t > 0 && !get_report(t, &r)) {
		CHECK(r.parent == PvmParentNotSet || r.parent == PvmNoParent,
		      "parent with PvmNoSpawnParent: %d", r.parent);
		send_go(t);
	}
	pvm_exit();
	return t_done("spawn");
}

static int wait_ready(int tid)
{
	int b = t_recv(tid, TAG_READY, 20);
	CHECK(b > 0, "child t%x not ready", tid);
	return b > 0;
}

/* Expects a PvmTaskExit notify for `tid` with `tag` within `secs`. */
static void expect_exit_notify(int tid, int tag, double secs, const char *what)
{
	/* received by naming the pvmd's address as the source, as programs
	 * written for the reference do */
	int b = t_recv((int)0x80000000u, tag, secs);
	CHECK(b > 0, "%s: no notify for t%x", what, tid);
	if (b <= 0)
		return;
	int len = -1, mtag = -1, src = -1, who = 0;
	pvm_bufinfo(b, &len, &mtag, &src);
	EQ(mtag, tag);
	EQ((unsigned)src, 0x80000000u);
	EQ(pvm_upkint(&who, 1, 1), 0);
	CHECK(who == tid, "%s: notify names t%x, expected t%x", what, who, tid);
}

static int test_notify(void)
{
	int me = pvm_mytid(), t;
	(void)me;
	char *aexit[] = {"child", "exit", NULL};
	char *anopvm[] = {"child", "exitnopvm", NULL};
	char *asegv[] = {"child", "segv", NULL};
	char *await_[] = {"child", "wait", NULL};

	/* normal exit (pvm_exit) */
	t = spawn1(await_, 0, NULL);
	if (t > 0 && wait_ready(t)) {
		EQ(pvm_notify(PvmTaskExit, TAG_NOTIFY, 1, &t), 0);
		EQ(pvm_kill(t), 0);
		expect_exit_notify(t, TAG_NOTIFY, 10, "kill");
		EQ(pvm_pstat(t), PvmNoTask);
	}
	/* exit through pvm_exit: register before it can exit (it exits at once,
	 * so the notify may also be of the "already gone" kind) */
	t = spawn1(aexit, 0, NULL);
	if (t > 0) {
		EQ(pvm_notify(PvmTaskExit, TAG_NOTIFY + 1, 1, &t), 0);
		expect_exit_notify(t, TAG_NOTIFY + 1, 10, "pvm_exit");
	}
	t = spawn1(anopvm, 0, NULL);
	if (t > 0) {
		EQ(pvm_notify(PvmTaskExit, TAG_NOTIFY + 2, 1, &t), 0);
		expect_exit_notify(t, TAG_NOTIFY + 2, 10,
				   "exit without pvm_exit");
	}
	t = spawn1(asegv, 0, NULL);
	if (t > 0) {
		EQ(pvm_notify(PvmTaskExit, TAG_NOTIFY + 3, 1, &t), 0);
		expect_exit_notify(t, TAG_NOTIFY + 3, 10, "SIGSEGV");
		/* already gone: the notify comes at once */
		EQ(pvm_notify(PvmTaskExit, TAG_NOTIFY + 4, 1, &t), 0);
		expect_exit_notify(t, TAG_NOTIFY + 4, 5, "already gone");
	}
	/* several tids in one call, one notify each */
	int two[2];
	two[0] = spawn1(await_, 0, NULL);
	two[1] = spawn1(await_, 0, NULL);
	if (two[0] > 0 && two[1] > 0 && wait_ready(two[0]) &&
	    wait_ready(two[1])) {
		EQ(pvm_notify(PvmTaskExit, TAG_NOTIFY + 5, 2, two), 0);
		pvm_kill(two[1]);
		expect_exit_notify(two[1], TAG_NOTIFY + 5, 10, "pair 1");
		pvm_kill(two[0]);
		expect_exit_notify(two[0], TAG_NOTIFY + 5, 10, "pair 0");
	}
	/* PvmNotifyCancel */
	t = spawn1(await_, 0, NULL);
	if (t > 0 && wait_ready(t)) {
		EQ(pvm_notify(PvmTaskExit, TAG_NOTIFY + 6, 1, &t), 0);
		EQ(pvm_notify(PvmTaskExit, TAG_NOTIFY + 7, 1, &t), 0);
		EQ(pvm_notify(PvmTaskExit | PvmNotifyCancel, TAG_NOTIFY + 6, 1,
			      &t),
		   0);
		/* man 3 pvm_notify: cancelling delivers the notify as if the
		 * event happened (the reference does so); the task is still
		 * alive. */
		expect_exit_notify(t, TAG_NOTIFY + 6, 10, "cancelled");
		EQ(pvm_pstat(t), PvmOk);
		pvm_kill(t);
		expect_exit_notify(t, TAG_NOTIFY + 7, 10, "uncancelled");
		/* and the cancelled one does not come again */
		int b = t_recv(-1, TAG_NOTIFY + 6, 1.0);
		EQ(b, 0);
	}
	/* bad arguments */
	EQ(pvm_notify(PvmTaskExit, TAG_NOTIFY, -1, &t), PvmBadParam);
	EQ(pvm_notify(99, TAG_NOTIFY, 1, &t), PvmBadParam);
	/* nothing else was delivered */
	EQ(pvm_nrecv(-1, -1), 0);
	pvm_exit();
	return t_done("notify");
}

static int test_kill(void)
{
	int me = pvm_mytid();
	char *await_[] = {"child", "wait", NULL};
	int t = spawn1(await_, 0, NULL);
	if (t > 0 && wait_ready(t)) {
		EQ(pvm_pstat(t), PvmOk);
		EQ(pvm_kill(t), 0);
		/* it disappears from the task list within a few seconds */
		double t0 = t_now();
		while (pvm_pstat(t) != PvmNoTask && t_now() - t0 < 10)
			t_msleep(50);
		EQ(pvm_pstat(t), PvmNoTask);
		int nt = 0, i, found = 0;
		struct pvmtaskinfo *ti = NULL;
		pvm_tasks(0, &nt, &ti);
		for (i = 0; i < nt; i++)
			found += ti[i].ti_tid == t;
		EQ(found, 0);
	}
	EQ(pvm_kill(0), PvmBadParam);
	EQ(pvm_kill(-3), PvmBadParam);
	(void)me;
	pvm_exit();
	return t_done("kill");
}

/* pvm_newcontext until refused: 4096 a task (docs/limits.md), then
 * PvmOutOfRes; one freed gives room for one more. */
static int test_ctxcap(void)
{
	int n = 0, c = 0, first = 0;
	pvm_setopt(PvmAutoErr, 0);
	while (n < 100000 && (c = pvm_newcontext()) > 0) {
		if (!first)
			first = c;
		n++;
	}
	printf("contexts %d code %d\n", n, c);
	EQ(n, 4096);
	EQ(c, PvmOutOfRes);
	EQ(pvm_freecontext(first), 0);
	CHECK(pvm_newcontext() > 0, "no context after one was freed");
	EQ(pvm_newcontext(), PvmOutOfRes);
	return t_done("ctxcap");
}

/* pvm_notify until refused: 65536 registrations a task (docs/limits.md),
 * then PvmOutOfRes; a cancelled one (delivered at once) makes room. */
static int test_notifycap(void)
{
	int me = pvm_mytid(), n = 0, st = 0;
	static int tids[1024];
	for (int i = 0; i < 1024; i++)
		tids[i] = me;
	pvm_setopt(PvmAutoErr, 0);
	while (n < 200000 &&
	       (st = pvm_notify(PvmTaskExit, 77, 1024, tids)) >= 0)
		n += 1024;
	printf("registrations %d code %d\n", n, st);
	EQ(n, 65536);
	EQ(st, PvmOutOfRes);
	EQ(pvm_notify(PvmTaskExit | PvmNotifyCancel, 77, 1, tids), 0);
	CHECK(t_recv(-1, 77, 10) > 0, "the cancelled registration's message");
	EQ(pvm_notify(PvmTaskExit, 77, 1, tids), 0);
	EQ(pvm_notify(PvmTaskExit, 77, 1, tids), PvmOutOfRes);
	return t_done("notifycap");
}

static int test_ctx(void)
{
	int me = pvm_mytid(), i;
	(void)me;
	EQ(pvm_getcontext(), 0);
	int ca = pvm_newcontext();
	int cb = pvm_newcontext();
	CHECK(ca > 0 && cb > 0 && ca != cb, "contexts %d %d", ca, cb);
	/* a child spawned in context ca starts in ca */
	EQ(pvm_setcontext(ca), 0);
	EQ(pvm_getcontext(), ca);
	char *actx[] = {"child", "ctx", NULL};
	int t = spawn1(actx, 0, NULL);
	EQ(pvm_setcontext(0), ca);
	if (t <= 0)
		return t_done("ctx");
	/* the report is in context ca: invisible in the base context */
	EQ(t_recv(t, TAG_REPORT, 1.0), 0);
	pvm_setcontext(ca);
	int b = t_recv(t, TAG_REPORT, 20), cctx = -1;
	CHECK(b > 0, "no report in ctx %d", ca);
	pvm_upkint(&cctx, 1, 1);
	EQ(cctx, ca);
	/* ask for one tag-1 message in each of ca, cb, 0: the same tag, three
	 * "libraries" that must not see each other's messages */
	int list[4] = {3, ca, cb, 0};
	pvm_initsend(PvmDataDefault);
	pvm_pkint(list, 4, 1);
	pvm_send(t, TAG_GO);
	/* wait until all three arrived (they come in order ca, cb, 0) */
	pvm_setcontext(0);
	int got = -1;
	b = t_recv(t, 1, 20);
	CHECK(b > 0, "ctx 0 message missing");
	pvm_upkint(&got, 1, 1);
	EQ(got, 0);
	pvm_setcontext(cb);
	EQ(pvm_probe(-1, -1) > 0, 1);
	b = t_recv(-1, -1, 5);
	got = -1;
	pvm_upkint(&got, 1, 1);
	EQ(got, cb);
	EQ(pvm_nrecv(-1, -1), 0);
	pvm_setcontext(ca);
	b = t_recv(-1, 1, 5);
	got = -1;
	pvm_upkint(&got, 1, 1);
	EQ(got, ca);
	EQ(pvm_nrecv(-1, -1), 0);
	pvm_initsend(PvmDataDefault);
	pvm_send(t, TAG_GO); /* in ca: the child waits in ca */
	pvm_setcontext(0);
	EQ(pvm_nrecv(-1, -1), 0);
	EQ(pvm_freecontext(ca), 0);
	EQ(pvm_freecontext(cb), 0);
	for (i = 0; i < 3; i++)
		EQ(pvm_getcontext(), 0);
	pvm_exit();
	return t_done("ctx");
}

/* spawnwait NAME COUNT [ARGS...]: spawns COUNT copies of NAME, waits until
 * all have exited (PvmTaskExit notifies), prints their tids. */
static int test_spawnwait(int ac, char **av)
{
	int me = pvm_mytid(), i;
	CHECK(me > 0, "mytid %d", me);
	int cnt = ac > 3 ? atoi(av[3]) : 1, tids[64];
	if (cnt < 1 || cnt > 64)
		return 2;
	int n = pvm_spawn(av[2], ac > 4 ? av + 4 : NULL, 0, NULL, cnt, tids);
	EQ(n, cnt);
	if (n <= 0)
		return t_done("spawnwait");
	EQ(pvm_notify(PvmTaskExit, TAG_NOTIFY, n, tids), 0);
	for (i = 0; i < n; i++) {
		int b = t_recv(-1, TAG_NOTIFY, 50), who = 0;
		CHECK(b > 0, "only %d of %d exited", i, n);
		if (b <= 0)
			break;
		pvm_upkint(&who, 1, 1);
		printf("exited t%x\n", who);
	}
	for (i = 0; i < n; i++)
		printf("spawned t%x\n", tids[i]);
	pvm_exit();
	return t_done("spawnwait");
}

/* startpvmd: with no pvmd running, pvm_start_pvmd starts one (blocking
 * until it answers); a second call finds it running. */
static int test_startpvmd(void)
{
	int r = pvm_start_pvmd(0, NULL, 1);
	EQ(r, 0);
	int me = pvm_mytid();
	CHECK(me > 0, "mytid after pvm_start_pvmd: %d", me);
	EQ(pvm_start_pvmd(0, NULL, 1), PvmDupHost);
	pvm_exit();
	return t_done("startpvmd");
}

/* autoerr: PvmAutoErr 1 prints the failing call on stderr, 0 is silent,
 * 2 prints and exits (the bats test checks stderr and the exit status). */
static int test_autoerr(void)
{
	int me = pvm_mytid();
	CHECK(me > 0, "mytid %d", me);
	EQ(pvm_getopt(PvmAutoErr), 1);
	fflush(stdout);
	EQ(pvm_send(0, 1), PvmBadParam); /* printed */
	EQ(pvm_setopt(PvmAutoErr, 0), 1);
	EQ(pvm_kill(0), PvmBadParam); /* silent */
	EQ(pvm_setopt(PvmAutoErr, 2), 0);
	printf("before exit\n");
	fflush(stdout);
	pvm_send(-1, 1); /* PvmBadParam: printed, then exit */
	printf("after exit\n");
	return t_done("autoerr");
}

/* orphan: waits in pvm_recv; the test kills the pvmd meanwhile.  The
 * receive must fail (PvmSysErr), not hang, and later calls fail too. */
static int test_orphan(void)
{
	int me = pvm_mytid();
	CHECK(me > 0, "mytid %d", me);
	pvm_setopt(PvmAutoErr, 0);
	printf("waiting\n");
	fflush(stdout);
	int r = pvm_recv(-1, 77);
	printf("recv returned %d\n", r);
	EQ(r, PvmSysErr);
	int tid = 0;
	char *av[] = {"child", "exit", NULL};
	int n = pvm_spawn(ME, av, 0, NULL, 1, &tid);
	CHECK(n < 0 || (n == 0 && tid < 0), "spawn without a pvmd: n=%d tid=%d",
	      n, tid);
	return t_done("orphan");
}

/* spawnone NAME: prints what pvm_spawn returns for one copy of NAME. */
static int test_spawnone(const char *name)
{
	int me = pvm_mytid(), tid = 0;
	CHECK(me > 0, "mytid %d", me);
	char *av[] = {"child", "exit", NULL};
	int n = pvm_spawn((char *)name, av, 0, NULL, 1, &tid);
	printf("n=%d tid=%d\n", n, tid);
	pvm_exit();
	return t_done("spawnone");
}

static int test_halt(void)
{
	int me = pvm_mytid();
	CHECK(me > 0, "mytid %d", me);
	char *await_[] = {"child", "wait", NULL};
	int t = spawn1(await_, 0, NULL);
	if (t > 0)
		wait_ready(t);
	printf("child %x\n", t);
	fflush(stdout);
	int r = pvm_halt();
	CHECK(r == 0 || r == PvmSysErr, "pvm_halt %d", r);
	return t_done("halt");
}

/* One spawn of n copies (the pvmd starts them in steps): every child,
 * however early it enrolls and asks, gets the whole sibling list. */
static int test_sibsbig(int n)
{
	int me = pvm_mytid();
	CHECK(me > 0, "mytid %d", me);
	char mehex[16];
	snprintf(mehex, sizeof mehex, "%x", me);
	char *av[] = {"child", "nsib", mehex, NULL};
	int *tids = calloc((size_t)n, sizeof *tids);
	int *sibs = calloc((size_t)n, sizeof *sibs);
	int got = pvm_spawn(ME, av, PvmTaskDefault, NULL, n, tids);
	EQ(got, n);
	int whole = 0, short_ = 0, minsib = n;
	for (int i = 0; i < got; i++) {
		if (pvm_trecv(-1, TAG_REPORT, &(struct timeval){60, 0}) <= 0) {
			CHECK(0, "report %d of %d did not come", i, got);
			break;
		}
		int nsib = -1;
		pvm_upkint(&nsib, 1, 1);
		if (nsib < minsib)
			minsib = nsib;
		if (nsib != n) {
			short_++;
			continue;
		}
		pvm_upkint(sibs, n, 1);
		whole += !memcmp(sibs, tids, (size_t)n * sizeof *tids);
	}
	printf("children %d: whole lists %d, short %d, shortest %d\n", got,
	       whole, short_, minsib);
	EQ(whole, n);
	free(tids);
	free(sibs);
	return t_done("sibsbig");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "child"))
		return child_main(argc, argv);
	if (argc < 2) {
		fprintf(stderr,
			"usage: pt_task nopvmd|info|opts|spawn|notify|kill|ctx|halt\n");
		return 2;
	}
	const char *t = argv[1];
	if (!strcmp(t, "nopvmd"))
		return test_nopvmd();
	if (!strcmp(t, "info"))
		return test_info();
	if (!strcmp(t, "opts"))
		return test_opts();
	if (!strcmp(t, "spawn"))
		return test_spawn();
	if (!strcmp(t, "notify"))
		return test_notify();
	if (!strcmp(t, "kill"))
		return test_kill();
	if (!strcmp(t, "ctx"))
		return test_ctx();
	if (!strcmp(t, "ctxcap"))
		return test_ctxcap();
	if (!strcmp(t, "notifycap"))
		return test_notifycap();
	if (!strcmp(t, "spawnwait") && argc >= 3)
		return test_spawnwait(argc, argv);
	if (!strcmp(t, "startpvmd"))
		return test_startpvmd();
	if (!strcmp(t, "autoerr"))
		return test_autoerr();
	if (!strcmp(t, "orphan"))
		return test_orphan();
	if (!strcmp(t, "spawnone") && argc >= 3)
		return test_spawnone(argv[2]);
	if (!strcmp(t, "halt"))
		return test_halt();
	if (!strcmp(t, "sibsbig") && argc >= 3)
		return test_sibsbig(atoi(argv[2]));
	fprintf(stderr, "unknown test %s\n", t);
	return 2;
}
