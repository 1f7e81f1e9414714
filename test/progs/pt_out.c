/*
 * pt_out.c - task control: output of children (pvm_catchout, PvmOutputTid
 * and the PvmSelfOutput options), spawn flags and the working directory,
 * signals and killing oneself.  Driven by test/taskctl.bats.
 *
 *   pt_out catch SHOWTIDS ROLE ARGS...  catchout(stdout), spawn ROLE,
 *                                       wait for its exit notify, pvm_exit,
 *                                       print "after exit": bats checks the
 *                                       printed framing
 *   pt_out exitnow ROLE ARGS...         catchout(stdout), spawn, pvm_exit at
 *                                       once (it must wait for the output)
 *   pt_out debug ROLE ARGS...           as catch 1, spawned with PvmTaskDebug
 *   pt_out catchoff                     pvm_catchout(0) between two spawns
 *   pt_out msgs                         PvmOutputTid/Code/Context messages
 *   pt_out selfout                      a child moves its own output here
 *   pt_out flags                        PvmHostCompl, PvmMppFront, where
 *   pt_out wd HOME [RELPROG]            working directory of spawned tasks
 *   pt_out sig                          pvm_sendsig to a child
 *   pt_out killself                     a child does pvm_kill(pvm_mytid())
 *   pt_out noreset                      pvm_getnoresets follows PvmNoReset
 *   pt_out outflood MIB [HOST]          its child (on HOST) writes MIB MiB
 *                                       to stdout;
 *                                       we take them as output messages
 *                                       (PvmOutputTid), print "ready", and
 *                                       at the end "got N bytes" (the test
 *                                       stops us with SIGSTOP meanwhile)
 *
 * Roles of spawned children: say WORDS... (prints the words, one per line,
 * the last one without a newline, and "err WORD" on stderr), parent
 * (spawns "say" itself: a grandchild), crash (writes, then SIGSEGV),
 * slow, pwd, sigwait, suicide, selfchild, noresetkid, nothing.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tcommon.h"

#define TAG_EXIT  9001
#define TAG_REPLY 9002
#define TAG_OUT	  77
#define TAG_SELF  55

/* ---- children ---- */

static void say(int argc, char **argv)
{
	/* stderr first: both share one pipe, and the last word has no
	 * newline */
	if (argc)
		fprintf(stderr, "err %s\n", argv[0]);
	for (int i = 0; i < argc; i++)
		printf(i + 1 < argc ? "%s\n" : "%s", argv[i]);
	fflush(stdout);
}

static int child(const char *role, int argc, char **argv)
{
	int me = pvm_mytid();
	if (me < 0)
		return 1;
	if (!strcmp(role, "flood") && argc >= 1) {
		/* MiB of output in 64 KiB writes */
		static char block[65536];
		memset(block, 'x', sizeof block);
		block[sizeof block - 1] = '\n';
		for (long i = 0; i < atol(argv[0]) * 16; i++)
			for (size_t off = 0; off < sizeof block;) {
				ssize_t w = write(1, block + off,
						  sizeof block - off);
				if (w <= 0)
					return 1;
				off += (size_t)w;
			}
	} else if (!strcmp(role, "say")) {
		say(argc, argv);
	} else if (!strcmp(role, "parent")) {
		/* the grandchild's output goes where ours goes */
		int t = 0;
		int n = pvm_spawn("pt_out",
				  (char *[]){"say", "grand", "child", NULL}, 0,
				  "", 1, &t);
		printf("spawned %d t%x\n", n, t);
		fflush(stdout);
	} else if (!strcmp(role, "crash")) {
		/* write(2) goes straight to the pipe; stdio is buffered in the
		 * task, and our library flushes it when the task crashes */
		const char w[] = "written line\n";
		if (write(1, w, sizeof w - 1) < 0)
			return 1;
		printf("stdio line\nstdio partial");
		raise(SIGSEGV);
		return 1;
	} else if (!strcmp(role, "slow")) {
		t_msleep(1500);
		printf("late line\n");
	} else if (!strcmp(role, "pwd")) {
		char cwd[4096];
		if (!getcwd(cwd, sizeof cwd))
			snprintf(cwd, sizeof cwd, "getcwd: %s",
				 strerror(errno));
		pvm_initsend(PvmDataDefault);
		pvm_pkstr(cwd);
		pvm_send(pvm_parent(), TAG_REPLY);
	} else if (!strcmp(role, "sigwait")) {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		pvm_initsend(PvmDataDefault);
		pvm_send(pvm_parent(), TAG_REPLY); /* ready */
		int sig = 0;
		struct timespec ts = {20, 0};
		sig = sigtimedwait(&set, NULL, &ts);
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&sig, 1, 1);
		pvm_send(pvm_parent(), TAG_REPLY);
	} else if (!strcmp(role, "suicide")) {
		/* SIGTERM held back until the result is sent, then it kills */
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigprocmask(SIG_BLOCK, &set, NULL);
		int r = pvm_kill(me);
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&r, 1, 1);
		pvm_send(pvm_parent(), TAG_REPLY);
		t_msleep(300); /* the signal has arrived by now */
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		for (int i = 0; i < 100; i++)
			t_msleep(100);
		pvm_initsend(PvmDataDefault);
		pvm_send(pvm_parent(), TAG_REPLY + 1); /* survived: wrong */
	} else if (!strcmp(role, "selfchild")) {
		int p = pvm_parent();
		printf("before\n");
		fflush(stdout);
		int r1 = pvm_setopt(PvmSelfOutputTid, p);
		int r2 = pvm_setopt(PvmSelfOutputCode, TAG_SELF);
		printf("after %d %d\nbye", r1, r2);
		fflush(stdout);
	} else if (!strcmp(role, "noresetkid")) {
		/* set PvmNoReset, say so, clear it when told, say so */
		int p = pvm_parent();
		pvm_setopt(PvmNoReset, 1);
		pvm_initsend(PvmDataDefault);
		pvm_send(p, TAG_REPLY);
		t_recv(p, TAG_REPLY, 20);
		pvm_setopt(PvmNoReset, 0);
		pvm_initsend(PvmDataDefault);
		pvm_send(p, TAG_REPLY);
		t_recv(p, TAG_REPLY, 20);
	} else if (strcmp(role, "nothing")) {
		return 2;
	}
	pvm_exit();
	return 0;
}

/* ---- parents ---- */

/* The program spawned (pt_out on the spawn path unless changed). */
static const char *prog = "pt_out";

static int spawn_role(int flags, const char *where, int argc, char **argv)
{
	/* argv[0] is the role: pt_out ROLE ARGS... */
	char **av = calloc((size_t)argc + 1, sizeof *av);
	for (int i = 0; i < argc; i++)
		av[i] = argv[i];
	int t = 0;
	int n = pvm_spawn((char *)prog, av, flags, (char *)where, 1, &t);
	free(av);
	return n == 1 ? t : (n < 0 ? n : t);
}

/* catch / debug / exitnow: the printed output is what bats checks. */
static int catch_main(int showtids, int flags, int wait_exit, int argc,
		      char **argv)
{
	int me = pvm_mytid();
	if (me < 0)
		return 1;
	pvm_catchout(stdout);
	EQ(pvm_getopt(PvmOutputTid), me);
	pvm_setopt(PvmShowTids, showtids);
	int t = spawn_role(flags, "", argc, argv);
	CHECK(t > 0, "spawn %s: %d", argv[0], t);
	printf("child t%x\n", (unsigned)t);
	fflush(stdout);
	if (t > 0 && wait_exit) {
		pvm_notify(PvmTaskExit, TAG_EXIT, 1, &t);
		int b = t_recv(-1, TAG_EXIT, 30);
		int who = 0;
		if (b > 0)
			pvm_upkint(&who, 1, 1);
		CHECK(b > 0 && who == t, "exit notify for t%x: buf %d tid %x",
		      t, b, who);
		printf("exit notified t%x\n", (unsigned)who);
		fflush(stdout);
	}
	pvm_exit();
	printf("after exit\n");
	return t_done("catch");
}

/* catchoff: collection turned off for later children only. */
static int catchoff_main(void)
{
	int me = pvm_mytid();
	if (me < 0)
		return 1;
	pvm_catchout(stdout);
	int a = spawn_role(0, "", 2, (char *[]){"say", "first"});
	pvm_catchout(NULL);
	EQ(pvm_getopt(PvmOutputTid), 0);
	int b = spawn_role(0, "", 2, (char *[]){"say", "second"});
	CHECK(a > 0 && b > 0, "spawn: %d %d", a, b);
	printf("children t%x t%x\n", (unsigned)a, (unsigned)b);
	int both[2] = {a, b};
	pvm_notify(PvmTaskExit, TAG_EXIT, 2, both);
	for (int i = 0; i < 2; i++)
		CHECK(t_recv(-1, TAG_EXIT, 20) > 0, "exit notify %d", i);
	/* give the last output messages time to come in */
	for (int i = 0; i < 10; i++) {
		pvm_nrecv(-1, 1);
		t_msleep(50);
	}
	pvm_exit();
	printf("after exit\n");
	return t_done("catchoff");
}

/* Receives output messages with `tag` from the pvmd for task `tid` until
 * its EOF; appends the text to out.  Returns the number of start
 * messages (-1 or -2), or -1 on a format error (reported). */
static int collect(int tid, int tag, int me, char *out, size_t cap, int *codes,
		   int ncodes)
{
	int nstart = 0, k = 0;
	size_t len = strlen(out);
	for (;;) {
		int b = t_recv(-1, tag, 20);
		CHECK(b > 0, "output message with tag %d: %d", tag, b);
		if (b <= 0)
			return -1;
		int bytes = -1, mtag = 0, src = 0, hdr[2];
		pvm_bufinfo(b, &bytes, &mtag, &src);
		EQ(src, (int)0x80000000);
		if (pvm_upkint(hdr, 2, 1) < 0) {
			CHECK(0, "unpacking an output message");
			return -1;
		}
		if (hdr[0] != tid)
			continue; /* another task's */
		if (k < ncodes)
			codes[k++] = hdr[1] > 0 ? 1 : hdr[1];
		if (hdr[1] < 0) {
			int ptid = 0;
			EQ(bytes, 12);
			pvm_upkint(&ptid, 1, 1);
			EQ(ptid, me);
			nstart++;
		} else if (hdr[1] == 0) {
			EQ(bytes, 8);
			return nstart;
		} else {
			int n = hdr[1];
			EQ(bytes, 8 + (n + 3) / 4 * 4);
			if (len + (size_t)n < cap) {
				pvm_upkbyte(out + len, n, 1);
				len += (size_t)n;
				out[len] = '\0';
			}
		}
	}
}

static int msgs_main(void)
{
	int me = pvm_mytid();
	if (me < 0)
		return 1;
	int ctx = pvm_newcontext();
	EQ(pvm_setopt(PvmOutputTid, me), 0);
	EQ(pvm_setopt(PvmOutputCode, TAG_OUT), 0);
	EQ(pvm_setopt(PvmOutputContext, ctx), 0);
	EQ(pvm_getopt(PvmOutputContext), ctx);
	int t = spawn_role(0, "", 4, (char *[]){"say", "one", "two", "three"});
	CHECK(t > 0, "spawn: %d", t);
	/* the messages carry the context set: in our context, no match */
	int b = t_recv(-1, TAG_OUT, 1.5);
	EQ(b, 0);
	pvm_setcontext(ctx);
	char out[256] = "";
	int codes[2] = {0, 0};
	int ns = collect(t, TAG_OUT, me, out, sizeof out, codes, 2);
	EQ(ns, 2);
	/* at the start: (tid, -2, parent) then (tid, -1, parent) */
	EQ(codes[0], -2);
	EQ(codes[1], -1);
	/* stdout and stderr share the pipe: whole text, order within each */
	CHECK(strstr(out, "one\ntwo\nthree") != NULL, "text: [%s]", out);
	CHECK(strstr(out, "err one\n") != NULL, "stderr text: [%s]", out);
	EQ(strlen(out), strlen("one\ntwo\nthree") + strlen("err one\n"));
	pvm_setcontext(0);
	pvm_exit();
	return t_done("msgs");
}

static int outflood_main(const char *mib, const char *where)
{
	int me = pvm_mytid();
	if (me < 0)
		return 1;
	pvm_setopt(PvmOutputTid, me);
	pvm_setopt(PvmOutputCode, TAG_OUT);
	int t = spawn_role(*where ? PvmTaskHost : 0, where, 2,
			   (char *[]){"flood", (char *)mib});
	if (t <= 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	size_t got = 0;
	for (;;) {
		int b = t_recv(-1, TAG_OUT, 120), hdr[2];
		if (b <= 0 || pvm_upkint(hdr, 2, 1) < 0)
			break;
		if (hdr[0] != t)
			continue;
		if (hdr[1] == 0)
			break;
		if (hdr[1] > 0)
			got += (size_t)hdr[1];
	}
	printf("got %zu bytes\n", got);
	pvm_exit();
	return 0;
}

static int selfout_main(void)
{
	int me = pvm_mytid();
	if (me < 0)
		return 1;
	/* the child's output goes to the pvmd log until it moves it here */
	int t = spawn_role(0, "", 1, (char *[]){"selfchild"});
	CHECK(t > 0, "spawn: %d", t);
	char out[256] = "";
	int codes[2] = {0, 0};
	int ns = collect(t, TAG_SELF, me, out, sizeof out, codes, 2);
	EQ(ns, 2);
	/* a switch announces -1 then -2, as the reference */
	EQ(codes[0], -1);
	EQ(codes[1], -2);
	/* setting the tid (code still 0) made a short stream with tag 0 */
	char out0[256] = "";
	ns = collect(t, 0, me, out0, sizeof out0, codes, 2);
	EQ(ns, 2);
	/* the output written after the switch, whole; nothing before */
	CHECK(!strcmp(out, "after 0 0\nbye"), "moved output: [%s]", out);
	CHECK(!strstr(out, "before"), "output before the switch: [%s]", out);
	pvm_exit();
	return t_done("selfout");
}

/* Spawns "nothing" with flags and where; returns what the slot holds. */
static int try_spawn(int flags, const char *where)
{
	int t = spawn_role(flags, where, 1, (char *[]){"nothing"});
	return t > 0 ? 1 : t;
}

static int flags_main(void)
{
	if (pvm_mytid() < 0)
		return 1;
	char host[256];
	struct pvmhostinfo *hi;
	int nh, na;
	EQ(pvm_config(&nh, &na, &hi), 0);
	snprintf(host, sizeof host, "%s", nh > 0 ? hi[0].hi_name : "?");
	/* HostCompl alone: the complement of every host is none */
	EQ(try_spawn(PvmHostCompl, ""), PvmNoHost);
	EQ(try_spawn(PvmHostCompl, "."), PvmNoHost);
	/* TaskHost|HostCompl: every host but the one named */
	EQ(try_spawn(PvmTaskHost | PvmHostCompl, "."), PvmNoHost);
	EQ(try_spawn(PvmTaskHost | PvmHostCompl, host), PvmNoHost);
	EQ(try_spawn(PvmTaskHost | PvmHostCompl, "no.such.host"), 1);
	/* TaskArch|HostCompl: hosts of any other architecture */
	EQ(try_spawn(PvmTaskArch | PvmHostCompl, "LINUX64"), PvmNoHost);
	EQ(try_spawn(PvmTaskArch | PvmHostCompl, "SUN4"), 1);
	/* TaskHost wins over TaskArch */
	EQ(try_spawn(PvmTaskHost | PvmTaskArch, "."), 1);
	EQ(try_spawn(PvmTaskHost | PvmTaskArch, "LINUX64"), PvmNoHost);
	/* MppFront: this host is its own front end */
	EQ(try_spawn(PvmMppFront, ""), 1);
	EQ(try_spawn(PvmMppFront | PvmTaskHost, "."), 1);
	/* the ":dir" part is not part of the host name */
	EQ(try_spawn(PvmTaskHost, ".:/tmp"), 1);
	EQ(try_spawn(PvmTaskHost, ":/tmp"), PvmNoHost);
	EQ(try_spawn(PvmTaskArch, "LINUX64:/tmp"), 1);
	pvm_exit();
	return t_done("flags");
}

static void expect_cwd(const char *where, const char *want)
{
	int t = spawn_role(0, where, 1, (char *[]){"pwd"});
	CHECK(t > 0, "spawn with where '%s': %d", where, t);
	if (t <= 0)
		return;
	char cwd[4096] = "";
	int b = t_recv(t, TAG_REPLY, 20);
	CHECK(b > 0, "cwd of a task spawned with where '%s'", where);
	if (b > 0)
		pvm_upkstr(cwd);
	CHECK(!strcmp(cwd, want), "where '%s': cwd %s, expected %s", where, cwd,
	      want);
}

/* relprog: a program path relative to $HOME (ours only: the reference
 * looks it up after changing directory and finds nothing) */
static int wd_main(const char *home, const char *relprog)
{
	if (pvm_mytid() < 0)
		return 1;
	char sub[4096], tmp[4096];
	snprintf(sub, sizeof sub, "%s/wdsub", home);
	if (mkdir(sub, 0700) < 0 && errno != EEXIST)
		CHECK(0, "mkdir %s: %s", sub, strerror(errno));
	if (!realpath("/tmp", tmp))
		snprintf(tmp, sizeof tmp, "/tmp");
	expect_cwd("", home);	   /* the pvmd's directory: $HOME */
	expect_cwd(":/tmp", tmp);  /* absolute */
	expect_cwd(":wdsub", sub); /* relative to $HOME */
	expect_cwd(".:/tmp", tmp);
	expect_cwd(":", home); /* empty: the default */
	if (relprog) {
		prog = relprog;
		expect_cwd(":/tmp", tmp);
		expect_cwd(":wdsub", sub);
		prog = "pt_out";
	}
	pvm_exit();
	return t_done("wd");
}

static int sig_main(void)
{
	if (pvm_mytid() < 0)
		return 1;
	int t = spawn_role(0, "", 1, (char *[]){"sigwait"});
	CHECK(t > 0, "spawn: %d", t);
	CHECK(t_recv(t, TAG_REPLY, 20) > 0, "child ready");
	EQ(pvm_sendsig(t, SIGUSR1), 0);
	int got = 0;
	CHECK(t_recv(t, TAG_REPLY, 20) > 0, "child's report");
	pvm_upkint(&got, 1, 1);
	EQ(got, SIGUSR1);
	/* a signal that kills: the exit is notified */
	int t2 = spawn_role(0, "", 1, (char *[]){"sigwait"});
	CHECK(t2 > 0, "spawn: %d", t2);
	CHECK(t_recv(t2, TAG_REPLY, 20) > 0, "child ready");
	pvm_notify(PvmTaskExit, TAG_EXIT, 1, &t2);
	EQ(pvm_sendsig(t2, SIGKILL), 0);
	int b = t_recv(-1, TAG_EXIT, 20), who = 0;
	CHECK(b > 0, "exit notify after SIGKILL");
	if (b > 0)
		pvm_upkint(&who, 1, 1);
	EQ(who, t2);
	EQ(pvm_pstat(t2), PvmNoTask);
	/* bad arguments */
	EQ(pvm_sendsig(0, SIGUSR1), PvmBadParam);
	pvm_exit();
	return t_done("sig");
}

static int killself_main(void)
{
	if (pvm_mytid() < 0)
		return 1;
	int t = spawn_role(0, "", 1, (char *[]){"suicide"});
	CHECK(t > 0, "spawn: %d", t);
	pvm_notify(PvmTaskExit, TAG_EXIT, 1, &t);
	int r = -999;
	CHECK(t_recv(t, TAG_REPLY, 20) > 0, "pvm_kill's result");
	pvm_upkint(&r, 1, 1);
	EQ(r, 0);
	int b = t_recv(-1, -1, 20), tag = -1, who = 0;
	if (b > 0) {
		pvm_bufinfo(b, NULL, &tag, NULL);
		pvm_upkint(&who, 1, 1);
	}
	EQ(tag, TAG_EXIT);
	EQ(who, t);
	EQ(pvm_pstat(t), PvmNoTask);
	pvm_exit();
	return t_done("killself");
}

/* Whether pvm_getnoresets lists `tid`; -1 if the call fails. */
static int noreset_listed(int tid)
{
	int *v = NULL, n = -1;
	int r = pvm_getnoresets(&v, &n);
	EQ(r, 0);
	if (r < 0 || n < 0)
		return -1;
	int found = 0;
	for (int i = 0; i < n; i++)
		found += v[i] == tid;
	return found;
}

static int noreset_main(void)
{
	int me = pvm_mytid();
	if (me < 0)
		return 1;
	int t = spawn_role(0, "", 1, (char *[]){"noresetkid"});
	CHECK(t > 0, "spawn: %d", t);
	EQ(noreset_listed(me), 0);
	CHECK(t_recv(t, TAG_REPLY, 20) > 0, "child set PvmNoReset");
	EQ(noreset_listed(t), 1);
	pvm_initsend(PvmDataDefault);
	pvm_send(t, TAG_REPLY);
	CHECK(t_recv(t, TAG_REPLY, 20) > 0, "child cleared PvmNoReset");
	EQ(noreset_listed(t), 0);
	/* set again by us, then gone with us: only the pvmd can tell */
	EQ(pvm_setopt(PvmNoReset, 1), 0);
	EQ(noreset_listed(me), 1);
	pvm_initsend(PvmDataDefault);
	pvm_send(t, TAG_REPLY);
	pvm_exit();
	return t_done("noreset");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: pt_out MODE [ARGS...]\n");
		return 2;
	}
	const char *m = argv[1];
	if (!strcmp(m, "catch") && argc >= 4)
		return catch_main(atoi(argv[2]), 0, 1, argc - 3, argv + 3);
	if (!strcmp(m, "exitnow") && argc >= 3)
		return catch_main(1, 0, 0, argc - 2, argv + 2);
	if (!strcmp(m, "debug") && argc >= 3)
		return catch_main(1, PvmTaskDebug, 1, argc - 2, argv + 2);
	if (!strcmp(m, "msgs"))
		return msgs_main();
	if (!strcmp(m, "selfout"))
		return selfout_main();
	if (!strcmp(m, "outflood") && (argc == 3 || argc == 4))
		return outflood_main(argv[2], argc == 4 ? argv[3] : "");
	if (!strcmp(m, "flags"))
		return flags_main();
	if (!strcmp(m, "wd") && (argc == 3 || argc == 4))
		return wd_main(argv[2], argc == 4 ? argv[3] : NULL);
	if (!strcmp(m, "sig"))
		return sig_main();
	if (!strcmp(m, "killself"))
		return killself_main();
	if (!strcmp(m, "catchoff"))
		return catchoff_main();
	if (!strcmp(m, "noreset"))
		return noreset_main();
	return child(m, argc - 2, argv + 2);
}
