/*
 * pt_notify.c - pvm_notify as a script, for notify.bats and
 * hosts-notify.bats.  Usage: pt_notify STEP...; each step is one word or a
 * word with arguments, run in order, and prints one line of what it saw, so
 * that a test compares the whole transcript with the reference's:
 *
 *   spawn NAME            spawn a partner, wait until it is ready
 *   spawnon NAME HOST     the same on HOST
 *   exit NAME             the partner calls pvm_exit; wait until it is gone
 *   kill NAME             pvm_kill it; wait until it is gone
 *   notify KIND TAG TIDS  pvm_notify; KIND is TE, HD or HA (PvmTaskExit,
 *                         PvmHostDelete, PvmHostAdd), ~KIND cancels; TIDS is
 *                         a comma list (HA: the count)
 *   recv SECS N           print every message that comes within SECS
 *                         (stop after N of them; 0: no limit)
 *   delhost HOSTS         pvm_delhosts of a comma list, in one call
 *   addhost HOSTS         pvm_addhosts likewise
 *   mark WORD             print WORD (a test waits for it, then acts)
 *   ctx new|base          pvm_newcontext and switch to it / back to the
 *                         base context (notifies go to the context of the
 *                         pvm_notify call, and a receive sees its own only)
 *   nosigterm             ignore SIGTERM (to see what a halt sends)
 *
 * A tid in TIDS or in the output is a name: "me", a partner's NAME, "dK"
 * for the pvmd of host K (0x80000000 | K << 18), "tK.N" for task N of host
 * K, or 0x... for any other value.  A message prints as
 * "got tag T src S body X,Y" with its body read as XDR ints.
 */
#include <signal.h>

#include "tcommon.h"

#define TAG_READY  98
#define TAG_GO	   99
#define HOST_SHIFT 18
#define TASK_MASK  0x3ffff
#define HOST_PART  0x3ffc0000

struct name {
	char name[16];
	int tid;
};
static struct name names[32];
static int nnames;

static void name_add(const char *n, int tid)
{
	if (nnames < (int)(sizeof names / sizeof names[0])) {
		snprintf(names[nnames].name, sizeof names[0].name, "%s", n);
		names[nnames++].tid = tid;
	}
}

/* The printed name of a tid (in one of two rotating buffers). */
static const char *tid_name(int tid)
{
	static char buf[2][24];
	static int k;
	char *b = buf[k++ & 1];
	for (int i = 0; i < nnames; i++)
		if (names[i].tid == tid)
			return names[i].name;
	unsigned u = (unsigned)tid;
	int host = (int)((u & HOST_PART) >> HOST_SHIFT);
	if ((u & 0xc0000000u) == 0x80000000u && !(u & TASK_MASK))
		snprintf(b, sizeof buf[0], "d%d", host);
	else if (!(u & 0xc0000000u) && host && (u & TASK_MASK))
		snprintf(b, sizeof buf[0], "t%d.%d", host,
			 (int)(u & TASK_MASK));
	else
		snprintf(b, sizeof buf[0], "0x%x", u);
	return b;
}

static int tid_parse(const char *s)
{
	for (int i = 0; i < nnames; i++)
		if (!strcmp(names[i].name, s))
			return names[i].tid;
	int host, task;
	char end;
	if (sscanf(s, "d%d%c", &host, &end) == 1)
		return (int)(0x80000000u | (unsigned)host << HOST_SHIFT);
	if (sscanf(s, "t%d.%d%c", &host, &task, &end) == 2)
		return host << HOST_SHIFT | task;
	return (int)strtoul(s, NULL, 0);
}

static int child(void)
{
	int parent = pvm_parent();
	pvm_initsend(PvmDataDefault);
	pvm_send(parent, TAG_READY);
	t_recv(parent, TAG_GO, 120);
	pvm_exit();
	return 0;
}

/* Waits up to 10 s for a task to be gone; says so if it is not. */
static void wait_gone(int tid)
{
	for (int i = 0; i < 200; i++) {
		if (pvm_pstat(tid) == PvmNoTask)
			return;
		t_msleep(50);
	}
	printf("t%x is still there\n", tid);
}

static void step_spawn(const char *nm, const char *host)
{
	char *argv[] = {"child", NULL};
	int tid = 0;
	int n = pvm_spawn("pt_notify", argv, host ? PvmTaskHost : 0,
			  (char *)host, 1, &tid);
	if (n != 1) {
		printf("spawn %s: %d (t%x)\n", nm, n, tid);
		return;
	}
	int b = t_recv(tid, TAG_READY, 30);
	name_add(nm, tid);
	printf("spawn %s %s\n", nm, b > 0 ? "ready" : "NOT READY");
}

/* Tags registered for PvmHostAdd: their bodies start with a count. */
static int ha_tags[8], nha;

static int is_ha_tag(int tag)
{
	for (int i = 0; i < nha; i++)
		if (ha_tags[i] == tag)
			return 1;
	return 0;
}

static void step_recv(double secs, int max)
{
	double end = t_now() + secs;
	int got = 0;
	while (max <= 0 || got < max) {
		double left = end - t_now();
		if (left <= 0)
			break;
		int b = t_recv(-1, -1, left);
		if (b <= 0)
			break;
		int len = 0, tag = 0, src = 0;
		pvm_bufinfo(b, &len, &tag, &src);
		printf("got tag %d src %s body ", tag, tid_name(src));
		for (int i = 0; i < len / 4; i++) {
			int v = 0;
			pvm_upkint(&v, 1, 1);
			if (i)
				printf(",");
			if (i == 0 && is_ha_tag(tag))
				printf("%d", v);
			else
				printf("%s", tid_name(v));
		}
		printf("\n");
		got++;
	}
	printf("recv: %d\n", got);
}

static void step_notify(const char *kind, int tag, const char *list)
{
	int cancel = kind[0] == '~';
	const char *k = kind + cancel;
	int what = !strcmp(k, "TE")   ? PvmTaskExit
		   : !strcmp(k, "HD") ? PvmHostDelete
		   : !strcmp(k, "HA") ? PvmHostAdd
				      : -1;
	int tids[16], n = 0, r;
	if (what == PvmHostAdd) {
		if (nha < (int)(sizeof ha_tags / sizeof ha_tags[0]))
			ha_tags[nha++] = tag;
		r = pvm_notify(what | (cancel ? PvmNotifyCancel : 0), tag,
			       atoi(list), NULL);
	} else {
		char buf[256];
		snprintf(buf, sizeof buf, "%s", list);
		for (char *t = strtok(buf, ","); t && n < 16;
		     t = strtok(NULL, ","))
			tids[n++] = tid_parse(t);
		r = pvm_notify(what | (cancel ? PvmNotifyCancel : 0), tag, n,
			       tids);
	}
	printf("notify %s %d %s = %d\n", kind, tag, list, r);
}

static void step_go(const char *nm, int kill)
{
	int tid = tid_parse(nm);
	if (kill) {
		printf("kill %s = %d\n", nm, pvm_kill(tid));
	} else {
		pvm_initsend(PvmDataDefault);
		printf("exit %s = %d\n", nm, pvm_send(tid, TAG_GO));
	}
	wait_gone(tid);
}

/* pvm_addhosts or pvm_delhosts of a comma list of hosts in one call;
 * prints the result and each host's status (0 for a host tid). */
static void step_host(const char *list, int add)
{
	char buf[256], *hosts[8];
	int st[8], n = 0;
	snprintf(buf, sizeof buf, "%s", list);
	for (char *t = strtok(buf, ","); t && n < 8; t = strtok(NULL, ","))
		hosts[n++] = t;
	int r = add ? pvm_addhosts(hosts, n, st) : pvm_delhosts(hosts, n, st);
	printf("%s %s = %d (", add ? "addhost" : "delhost", list, r);
	for (int i = 0; i < n; i++)
		printf(i ? ",%d" : "%d", st[i] < 0 ? st[i] : 0);
	printf(")\n");
}

static void step_ctx(const char *which)
{
	static int base = -1, made;
	if (base < 0)
		base = pvm_getcontext();
	if (!strcmp(which, "new")) {
		if (!made)
			made = pvm_newcontext();
		pvm_setcontext(made);
		printf("ctx new %s\n", made > 0 ? "ok" : "FAILED");
	} else {
		pvm_setcontext(base);
		printf("ctx base\n");
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	setvbuf(stdout, NULL, _IOLBF, 0);
	int me = pvm_mytid();
	if (me < 0) {
		printf("pvm_mytid: %d\n", me);
		return 1;
	}
	pvm_setopt(PvmAutoErr, 0);
	name_add("me", me);
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		int more = argc - i - 1;
		if (!strcmp(s, "spawn") && more >= 1) {
			step_spawn(argv[i + 1], NULL);
			i += 1;
		} else if (!strcmp(s, "spawnon") && more >= 2) {
			step_spawn(argv[i + 1], argv[i + 2]);
			i += 2;
		} else if ((!strcmp(s, "exit") || !strcmp(s, "kill")) &&
			   more >= 1) {
			step_go(argv[i + 1], s[0] == 'k');
			i += 1;
		} else if (!strcmp(s, "notify") && more >= 3) {
			step_notify(argv[i + 1], atoi(argv[i + 2]),
				    argv[i + 3]);
			i += 3;
		} else if (!strcmp(s, "recv") && more >= 2) {
			step_recv(atof(argv[i + 1]), atoi(argv[i + 2]));
			i += 2;
		} else if ((!strcmp(s, "delhost") || !strcmp(s, "addhost")) &&
			   more >= 1) {
			step_host(argv[i + 1], s[0] == 'a');
			i += 1;
		} else if (!strcmp(s, "ctx") && more >= 1) {
			step_ctx(argv[++i]);
		} else if (!strcmp(s, "nosigterm")) {
			signal(SIGTERM, SIG_IGN);
			printf("nosigterm\n");
		} else if (!strcmp(s, "mark") && more >= 1) {
			printf("%s\n", argv[++i]);
		} else {
			printf("bad step '%s'\n", s);
			pvm_exit();
			return 2;
		}
	}
	pvm_exit();
	return 0;
}
