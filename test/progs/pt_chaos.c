/*
 * pt_chaos - the task side of the fault-injection job (test/faults.bats,
 * test/faults.bash).  Usage:
 *   pt_chaos master PERHOST INTERVAL_MS STOPFILE MAXSECS [BREAK]
 * The master (run on the first host) spawns PERHOST workers on every host
 * (pt_chaos_worker.c: each streams checked messages to all the others),
 * watches every worker (PvmTaskExit) and every host (PvmHostDelete,
 * PvmHostAdd), and keeps PERHOST workers on every host in the machine:
 * a worker lost is replaced, a host added gets its share; each change
 * goes to the workers as the new list of peers.  It prints a line per
 * worker ("worker tX host H pid P") and per notify ("notify taskexit tX
 * host H at MS", hostdelete, hostadd: MS is epoch ms) for the driver,
 * which kills and stops them meanwhile.  When STOPFILE exists (or after
 * MAXSECS) it stops the streams: the survivors (workers without a
 * PvmTaskExit, on hosts still in the machine) end them with a count and
 * report what they received from whom; the master prints the accounting
 * and "verdict OK", or "problem: ..." lines and "verdict FAIL", and exits
 * 0 or 1.  Between two survivors every message must have arrived once, in
 * order and intact, and the count of the end must match; from a worker
 * that died the tail may be missing (gaps are counted, not faults) but
 * nothing may come twice, out of order or damaged.  BREAK (drop, dup,
 * corrupt) makes the first worker spoil the 6th message of each of its
 * streams on purpose (test/faults.bats: the accounting must see it).
 */
#include <errno.h>
#include <sys/stat.h>

#include "pt_chaos.h"
#include "tcommon.h"

struct worker {
	int tid, htid, pid, alive, final, reported;
	long long t_exit;
	int nrep;
	int *rep; /* nrep x REP_INTS */
};
struct host {
	int tid, alive;
	char name[64];
};

static struct worker *ws;
static int nw, wcap;
static struct host hs[256];
static int nh, problems;
static int perhost, interval;
static const char *spoil_mode;

static long long epoch_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...)
{
	va_list ap;
	printf("problem: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	problems++;
}

static struct host *host_of(int htid)
{
	for (int k = 0; k < nh; k++)
		if (hs[k].tid == htid)
			return &hs[k];
	return NULL;
}

static const char *hname(int htid)
{
	struct host *h = host_of(htid);
	return h ? h->name : "?";
}

static struct worker *worker_of(int tid)
{
	for (int k = 0; k < nw; k++)
		if (ws[k].tid == tid)
			return &ws[k];
	return NULL;
}

/* The host table: new hosts are added (alive), names kept for the dead. */
static void read_config(void)
{
	struct pvmhostinfo *hi = NULL;
	int n = 0, na = 0;
	if (pvm_config(&n, &na, &hi) < 0)
		return;
	for (int k = 0; k < n; k++) {
		struct host *h = host_of(hi[k].hi_tid);
		if (!h && nh < 256) {
			h = &hs[nh++];
			h->tid = hi[k].hi_tid;
			snprintf(h->name, sizeof h->name, "%s", hi[k].hi_name);
			h->alive = 1;
			printf("host %s t%x up\n", h->name, (unsigned)h->tid);
		}
	}
}

static int spawn_on(struct host *h, int n)
{
	char ivs[16];
	snprintf(ivs, sizeof ivs, "%d", interval);
	int tids[64];
	if (n > 64)
		n = 64;
	int got = 0;
	for (int k = 0; k < n; k++) {
		/* the first worker of a BREAK run spoils one message */
		char *av[5] = {"child", "worker", ivs,
			       nw == 0 && spoil_mode ? (char *)spoil_mode
						     : NULL,
			       NULL};
		int r = pvm_spawn(ME, av, PvmTaskHost, h->name, 1, &tids[k]);
		if (r != 1) {
			printf("spawn on %s: %d (t%x)\n", h->name, r,
			       (unsigned)tids[k]);
			break;
		}
		if (nw == wcap) {
			wcap = wcap ? 2 * wcap : 64;
			ws = realloc(ws, (size_t)wcap * sizeof *ws);
			if (!ws)
				exit(3);
		}
		struct worker *w = &ws[nw++];
		memset(w, 0, sizeof *w);
		w->tid = tids[k];
		w->htid = pvm_tidtohost(w->tid);
		w->alive = 1;
		printf("spawned t%x on %s\n", (unsigned)w->tid, h->name);
		if (pvm_notify(PvmTaskExit, T_TX, 1, &w->tid) < 0)
			problem("pvm_notify(PvmTaskExit) of t%x failed",
				(unsigned)w->tid);
		got++;
	}
	return got;
}

/* The list of live workers to every live worker. */
static void send_peers(int tag, int final)
{
	int *t = malloc(((size_t)nw + 1) * sizeof *t), n = 0;
	if (!t)
		exit(3);
	for (int k = 0; k < nw; k++)
		if (ws[k].alive && (!final || ws[k].final))
			t[n++] = ws[k].tid;
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&n, 1, 1);
	pvm_pkint(t, n, 1);
	if (n > 0)
		pvm_mcast(t, n, tag);
	free(t);
}

/* One message to the master; returns 1 if the set of workers changed. */
static int handle(int b)
{
	int len, tag, src, who = 0;
	pvm_bufinfo(b, &len, &tag, &src);
	struct worker *w = worker_of(src);
	switch (tag) {
	case T_HELLO:
		if (w) {
			pvm_upkint(&w->pid, 1, 1);
			printf("worker t%x host %s pid %d\n", (unsigned)w->tid,
			       hname(w->htid), w->pid);
		}
		return 0;
	case T_TX:
		pvm_upkint(&who, 1, 1);
		w = worker_of(who);
		printf("notify taskexit t%x host %s at %lld\n", (unsigned)who,
		       w ? hname(w->htid) : "?", epoch_ms());
		if (!w) {
			problem("PvmTaskExit for t%x, no worker",
				(unsigned)who);
			return 0;
		}
		if (!w->alive)
			problem("a second PvmTaskExit for t%x", (unsigned)who);
		if (w->final)
			problem("survivor t%x exited before the accounting",
				(unsigned)who);
		w->alive = 0;
		w->t_exit = epoch_ms();
		return 1;
	case T_HD: {
		pvm_upkint(&who, 1, 1);
		struct host *h = host_of(who);
		printf("notify hostdelete t%x host %s at %lld\n", (unsigned)who,
		       h ? h->name : "?", epoch_ms());
		if (h && !h->alive)
			problem("a second PvmHostDelete for %s", h->name);
		if (h)
			h->alive = 0;
		return 1;
	}
	case T_HA: {
		int cnt = 0;
		pvm_upkint(&cnt, 1, 1);
		int *t = calloc((size_t)cnt + 1, sizeof *t);
		if (!t)
			exit(3);
		pvm_upkint(t, cnt, 1);
		read_config();
		for (int k = 0; k < cnt; k++)
			printf("notify hostadd t%x host %s at %lld\n",
			       (unsigned)t[k], hname(t[k]), epoch_ms());
		if (cnt > 0 && pvm_notify(PvmHostDelete, T_HD, cnt, t) < 0)
			problem("pvm_notify(PvmHostDelete) of new hosts failed");
		free(t);
		return 1;
	}
	case T_REPORT:
		if (!w || w->reported) {
			problem("a report from t%x", (unsigned)src);
			return 0;
		}
		pvm_upkint(&w->nrep, 1, 1);
		if (w->nrep < 0 || w->nrep > MAXPEER)
			w->nrep = 0;
		w->rep = calloc((size_t)w->nrep * REP_INTS + 1, sizeof(int));
		if (!w->rep)
			exit(3);
		pvm_upkint(w->rep, w->nrep * REP_INTS, 1);
		w->reported = 1;
		return 0;
	}
	printf("unexpected message tag %d from t%x\n", tag, (unsigned)src);
	return 0;
}

/* Every live host gets its share of workers. */
static int fill_hosts(void)
{
	int changed = 0;
	for (int k = 0; k < nh; k++) {
		if (!hs[k].alive)
			continue;
		int have = 0;
		for (int j = 0; j < nw; j++)
			have += ws[j].alive && ws[j].htid == hs[k].tid;
		if (have < perhost)
			changed |= spawn_on(&hs[k], perhost - have) > 0;
	}
	return changed;
}

/* w's counts for the stream from tid (NULL: it never heard of it). */
static int *rep_of(struct worker *w, int tid)
{
	for (int k = 0; k < w->nrep; k++)
		if (w->rep[k * REP_INTS] == tid)
			return &w->rep[k * REP_INTS];
	return NULL;
}

static void account(void)
{
	long long checked = 0, fromdead = 0, lostdead = 0, nsurv = 0;
	int ntx = 0, nhd = 0;
	printf("accounting: receiver host sent recv from-survivors "
	       "gaps dups bad ends senderr\n");
	for (int i = 0; i < nw; i++) {
		struct worker *r = &ws[i];
		ntx += !r->alive;
		if (!r->final)
			continue;
		nsurv++;
		if (!r->reported) {
			problem("survivor t%x sent no report",
				(unsigned)r->tid);
			continue;
		}
		long sent = 0, recv = 0, fs = 0, gaps = 0, dups = 0, bad = 0,
		     serr = 0;
		int ends = 0, want = 0;
		for (int k = 0; k < r->nrep; k++) {
			int *v = &r->rep[k * REP_INTS];
			struct worker *s = worker_of(v[0]);
			sent += v[1], recv += v[3], gaps += v[4];
			dups += v[5], bad += v[6];
			if (v[5] || v[6])
				problem("t%x from t%x: %d duplicates or out of "
					"order, %d damaged",
					(unsigned)r->tid, (unsigned)v[0], v[5],
					v[6]);
			if (s && s->final && s->reported) {
				serr += v[2];
				if (v[2])
					problem("t%x to survivor t%x: %d sends "
						"failed",
						(unsigned)r->tid,
						(unsigned)v[0], v[2]);
			}
			if (!s || !s->final) {
				fromdead += v[3];
				lostdead += v[4];
			}
		}
		/* every survivor's stream to r: all of it, once, in order */
		for (int j = 0; j < nw; j++) {
			struct worker *s = &ws[j];
			if (!s->final || s == r || !s->reported)
				continue;
			int *sv = rep_of(s, r->tid), *rv = rep_of(r, s->tid);
			int ns = sv ? sv[1] : 0;
			int rv_recv = rv ? rv[3] : 0, rv_end = rv ? rv[7] : -1;
			want++;
			if (rv_end == ns)
				ends++;
			fs += rv_recv;
			checked += ns;
			if (rv_recv != ns || rv_end != ns ||
			    (rv && (rv[4] || rv[5] || rv[6])))
				problem("stream t%x -> t%x: sent %d, received "
					"%d, end count %d, gaps %d dups %d bad "
					"%d",
					(unsigned)s->tid, (unsigned)r->tid, ns,
					rv_recv, rv_end, rv ? rv[4] : 0,
					rv ? rv[5] : 0, rv ? rv[6] : 0);
		}
		printf("accounting: t%x %s %ld %ld %ld %ld %ld %ld %d/%d %ld\n",
		       (unsigned)r->tid, hname(r->htid), sent, recv, fs, gaps,
		       dups, bad, ends, want, serr);
	}
	for (int k = 0; k < nh; k++)
		nhd += !hs[k].alive;
	printf("accounting: %d workers, %lld survivors, %d task exits "
	       "notified, %d hosts deleted\n",
	       nw, nsurv, ntx, nhd);
	printf("accounting: %lld messages between survivors checked, %lld "
	       "received from workers that died, %lld of theirs skipped over\n",
	       checked, fromdead, lostdead);
}

static int master_main(char **av)
{
	perhost = atoi(av[2]);
	interval = atoi(av[3]);
	const char *stopfile = av[4];
	double maxsecs = atof(av[5]);
	spoil_mode = av[6];
	if (perhost < 1 || interval < 1)
		return 2;
	printf("master t%x\n", (unsigned)pvm_mytid());
	read_config();
	int ht[256];
	for (int k = 0; k < nh; k++)
		ht[k] = hs[k].tid;
	EQ(pvm_notify(PvmHostDelete, T_HD, nh, ht), 0);
	EQ(pvm_notify(PvmHostAdd, T_HA, -1, NULL), 0);
	fill_hosts();
	send_peers(T_PEERS, 0);
	printf("running %d workers on %d hosts\n", nw, nh);
	double t0 = t_now(), tick = t0;
	struct stat st;
	int changed = 0;
	while (t_now() - t0 < maxsecs && stat(stopfile, &st) != 0) {
		int b = t_recv(-1, -1, 0.25);
		if (b > 0)
			changed |= handle(b);
		else if (b < 0) {
			problem("pvm_trecv: %d", b);
			break;
		}
		if (t_now() - tick >= 1) {
			tick = t_now();
			changed |= fill_hosts();
			if (changed)
				send_peers(T_PEERS, 0);
			changed = 0;
		}
	}
	/* what is still on its way, then the survivors */
	for (double t1 = t_now(); t_now() - t1 < 1;) {
		int b = t_recv(-1, -1, 0.1);
		if (b > 0)
			handle(b);
	}
	int nf = 0;
	for (int k = 0; k < nw; k++) {
		struct worker *w = &ws[k];
		struct host *h = host_of(w->htid);
		if (w->alive && h && !h->alive)
			problem("no PvmTaskExit for t%x of the deleted host %s",
				(unsigned)w->tid, h->name);
		w->final = w->alive && h && h->alive;
		nf += w->final;
	}
	printf("stopping: %d survivors at %lld\n", nf, epoch_ms());
	send_peers(T_STOP, 1);
	double t1 = t_now();
	for (;;) {
		int left = 0;
		for (int k = 0; k < nw; k++)
			left += ws[k].final && ws[k].alive && !ws[k].reported;
		if (!left || t_now() - t1 > 120)
			break;
		int b = t_recv(-1, -1, 0.5);
		if (b > 0)
			handle(b);
	}
	printf("reports in after %.1f s\n", t_now() - t1);
	account();
	send_peers(T_QUIT, 1);
	for (int k = 0; k < nw; k++)
		free(ws[k].rep);
	free(ws);
	if (t_nfail)
		problems += t_nfail;
	printf("verdict %s", problems ? "FAIL" : "OK");
	if (problems)
		printf(" (%d problems)", problems);
	printf("\n");
	return problems ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && !strcmp(argv[1], "child") &&
	    !strcmp(argv[2], "worker"))
		return worker_main(atoi(argv[3]), argc > 4 ? argv[4] : NULL);
	if (argc < 6 || strcmp(argv[1], "master") != 0) {
		fprintf(stderr, "usage: pt_chaos master PERHOST INTERVAL_MS "
				"STOPFILE MAXSECS [BREAK]\n");
		return 2;
	}
	if (pvm_mytid() < 0)
		return 2;
	int r = master_main(argv);
	pvm_exit();
	return r;
}
