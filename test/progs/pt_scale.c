/*
 * pt_scale.c - many tasks enrolled on one host at once (scale.bats).
 *
 *   pt_scale all N [BATCH]      N children must all start and enroll
 *   pt_scale exhaust N [BATCH]  more children than the pvmd has room for
 *   pt_scale child              (spawned by the master)
 *
 * The master spawns N copies of itself, BATCH (default 512) per pvm_spawn
 * call.  Each child enrolls, sends the master one message and waits for a
 * "go" before it exits, so that all of them are enrolled at the same time;
 * the master then checks that pvm_tasks lists every one of them, releases
 * them with one pvm_mcast and waits for all their exit notices.
 *
 * "exhaust" runs the same against a pvmd short of descriptors or processes:
 * every slot pvm_spawn could not fill must hold PvmOutOfRes, PvmNoMem or
 * PvmSysErr (man 3 pvm_spawn), the tasks that did start must work, the
 * pvmd must keep answering (pvm_config, pvm_tasks), and once they are gone
 * a new spawn must work again.
 *
 * With PT_SCALE_PVMD_PID set, the master prints the pvmd's VmRSS before the
 * spawns and with all children enrolled, and the difference per task.
 */
#include "tcommon.h"

enum { TAG_HELLO = 31, TAG_GO = 32, TAG_EXIT = 33 };
#define LIMIT_SECS 120.0

static long pvmd_rss_kib(void)
{
	const char *pid = getenv("PT_SCALE_PVMD_PID");
	if (!pid || !*pid)
		return -1;
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%s/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long kib = -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static int child(void)
{
	int me = pvm_mytid();
	if (me < 0)
		return 1;
	int parent = pvm_parent();
	if (parent < 0)
		return 1;
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&me, 1, 1);
	if (pvm_send(parent, TAG_HELLO) < 0)
		return 1;
	if (pvm_recv(parent, TAG_GO) < 0)
		return 1;
	pvm_exit();
	return 0;
}

static int is_resource_error(int code)
{
	return code == PvmOutOfRes || code == PvmNoMem || code == PvmSysErr;
}

/* Spawns n children in batches; returns how many started (their tids
 * first in tids[], in order); the others' codes are checked. */
static int spawn_all(const char *self, int n, int batch, int exhaust, int *tids)
{
	char *argv[] = {"child", NULL};
	int *slot = malloc(sizeof *slot * (size_t)batch);
	int started = 0, refused = 0, badcode = 0;
	for (int done = 0; done < n; done += batch) {
		int k = n - done < batch ? n - done : batch;
		int cc = pvm_spawn((char *)self, argv, PvmTaskDefault, "", k,
				   slot);
		if (cc < 0 && exhaust && is_resource_error(cc)) {
			refused += k; /* the whole call refused */
			continue;
		}
		CHECK(cc >= 0, "pvm_spawn of %d: %d", k, cc);
		if (cc < 0)
			break;
		int ok = 0;
		for (int i = 0; i < k; i++) {
			if (slot[i] > 0) {
				tids[started++] = slot[i];
				ok++;
			} else {
				refused++;
				if (!is_resource_error(slot[i]) && !badcode++)
					CHECK(0,
					      "slot %d: code %d, not a resource error",
					      done + i, slot[i]);
			}
		}
		EQ(cc, ok);
	}
	free(slot);
	if (!exhaust)
		EQ(started, n);
	printf("%d started, %d refused\n", started, refused);
	return started;
}

/* Waits until each of the n tasks has said hello or exited; returns how
 * many said hello.  Exit notices of tasks that did not say hello are
 * consumed here; those of the others stay queued. */
static int wait_hellos(int n, const int *tids, char *said, int exhaust,
		       double t0)
{
	int hellos = 0, early = 0;
	for (int left = n; left > 0;) {
		double rest = LIMIT_SECS - (t_now() - t0);
		if (rest <= 0) {
			CHECK(0, "%.0f s passed with %d tasks not heard of",
			      LIMIT_SECS, left);
			break;
		}
		struct timeval tmo = {(long)rest, 0};
		int b = pvm_trecv(-1, -1, &tmo);
		if (b <= 0) {
			CHECK(0, "pvm_trecv: %d (%d tasks not heard of)", b,
			      left);
			return hellos;
		}
		int len, tag, src, who = 0;
		pvm_bufinfo(b, &len, &tag, &src);
		if (tag == TAG_HELLO)
			pvm_upkint(&who, 1, 1);
		else if (tag == TAG_EXIT)
			pvm_upkint(&who, 1, 1);
		else
			continue;
		int i;
		for (i = 0; i < n && tids[i] != who; i++)
			;
		if (i == n || said[i])
			continue; /* an exit after its hello: later */
		said[i] = tag == TAG_HELLO ? 1 : 2;
		left--;
		if (tag == TAG_HELLO)
			hellos++;
		else
			early++;
	}
	if (!exhaust)
		EQ(early, 0);
	return hellos;
}

static int count_children(int me)
{
	struct pvmtaskinfo *ti;
	int nt = 0;
	int cc = pvm_tasks(0, &nt, &ti);
	CHECK(cc >= 0, "pvm_tasks: %d", cc);
	int mine = 0;
	for (int i = 0; cc >= 0 && i < nt; i++)
		mine += ti[i].ti_ptid == me;
	return mine;
}

static int master(int exhaust, int n, int batch, const char *self)
{
	int me = pvm_mytid();
	if (me < 0) {
		printf("pvm_mytid: %d\n", me);
		return 1;
	}
	int *tids = calloc((size_t)n, sizeof *tids);
	char *said = calloc((size_t)n, 1);
	long rss0 = pvmd_rss_kib();
	double t0 = t_now();

	int started = spawn_all(self, n, batch, exhaust, tids);
	double t_spawn = t_now() - t0;
	if (started > 0) {
		int cc = pvm_notify(PvmTaskExit, TAG_EXIT, started, tids);
		CHECK(cc >= 0, "pvm_notify: %d", cc);
	}
	int hellos = wait_hellos(started, tids, said, exhaust, t0);
	double t_all = t_now() - t0;
	long rss1 = pvmd_rss_kib();
	printf("%d tasks enrolled at once: spawned in %.2f s, all enrolled after %.2f s\n",
	       hellos, t_spawn, t_all);
	if (rss0 > 0 && rss1 > 0 && hellos > 0)
		printf("pvmd VmRSS %ld KiB before, %ld KiB with %d tasks: %.1f KiB per task\n",
		       rss0, rss1, hellos, (double)(rss1 - rss0) / hellos);
	if (!exhaust)
		EQ(hellos, n);
	else
		CHECK(hellos > 0 && hellos < n,
		      "%d of %d enrolled: the limit should let some but not all start",
		      hellos, n);

	/* the pvmd still answers, and lists every enrolled child */
	int nhost, narch;
	struct pvmhostinfo *hi;
	EQ(pvm_config(&nhost, &narch, &hi), 0);
	EQ(nhost, 1);
	int listed = count_children(me);
	CHECK(listed >= hellos,
	      "pvm_tasks lists %d of our children, %d enrolled", listed,
	      hellos);

	/* release them all at once, then wait for every exit */
	int *live = malloc(sizeof *live * (size_t)(hellos + 1));
	int nlive = 0;
	for (int i = 0; i < started; i++)
		if (said[i] == 1)
			live[nlive++] = tids[i];
	pvm_initsend(PvmDataDefault);
	if (nlive > 0)
		EQ(pvm_mcast(live, nlive, TAG_GO), 0);
	int exits = 0;
	double t1 = t_now();
	while (exits < nlive) {
		double rest = LIMIT_SECS - (t_now() - t0);
		struct timeval tmo = {rest > 1 ? (long)rest : 1, 0};
		int b = pvm_trecv(-1, TAG_EXIT, &tmo);
		if (b <= 0) {
			CHECK(0, "exit notices: %d of %d (%d)", exits, nlive,
			      b);
			break;
		}
		exits++;
	}
	printf("%d tasks released and gone in %.2f s\n", exits, t_now() - t1);
	EQ(count_children(me), 0);

	if (exhaust) {
		/* room again: a new spawn works */
		int again[4];
		char *argv[] = {"child", NULL};
		int cc = pvm_spawn((char *)self, argv, PvmTaskDefault, "", 4,
				   again);
		EQ(cc, 4);
		if (cc > 0) {
			EQ(pvm_notify(PvmTaskExit, TAG_EXIT, cc, again), 0);
			int got = 0;
			for (int i = 0; i < cc; i++)
				got += t_recv(-1, TAG_HELLO, 30) > 0;
			EQ(got, cc);
			pvm_initsend(PvmDataDefault);
			EQ(pvm_mcast(again, cc, TAG_GO), 0);
			for (int i = 0; i < cc; i++)
				t_recv(-1, TAG_EXIT, 30);
		}
	}
	free(live);
	free(tids);
	free(said);
	pvm_exit();
	return t_done(exhaust ? "pt_scale exhaust" : "pt_scale all");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	if (argc < 3 ||
	    (strcmp(argv[1], "all") && strcmp(argv[1], "exhaust"))) {
		fprintf(stderr,
			"usage: pt_scale all|exhaust N [BATCH] | child\n");
		return 2;
	}
	int n = atoi(argv[2]);
	int batch = argc > 3 ? atoi(argv[3]) : 512;
	if (n < 1 || batch < 1 || batch > 4096) {
		fprintf(stderr, "pt_scale: N >= 1, 1 <= BATCH <= 4096\n");
		return 2;
	}
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len < 0) {
		perror("readlink /proc/self/exe");
		return 1;
	}
	self[len] = '\0';
	setvbuf(stdout, NULL, _IOLBF, 0);
	return master(!strcmp(argv[1], "exhaust"), n, batch, self);
}
