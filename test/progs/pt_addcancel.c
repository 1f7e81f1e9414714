/*
 * pt_addcancel.c - pvm_addhosts cut short (add-cancel.bats): libpvm's
 * lpvm_priv_addhosts and the master's TM_ADDCANCEL.  HOST is one whose
 * remote shell hangs (the test's PVM_RSH).
 * Usage: pt_addcancel MODE [HOST [SECS]]
 *
 *   tick HOST       the tick cancels after 1 s: it ran every 200 ms, the
 *                   answer came at once, "cancelled" under the host
 *   flag HOST       a SIGALRM handler sets the stop flag after 1 s, ticks
 *                   due only every 60 s: the signal ends the wait
 *   wait HOST SECS  the tick cancels after SECS; prints "waited MS"
 *   other           TM_ADDCANCEL with no add of ours pending (another
 *                   task's may be): answered 0, nothing else happens
 */
#include "tcommon.h"

#include <signal.h>

#include "libpvm/lpvm_priv.h"

struct ticks {
	int n;
	long last_ms, cancel_ms;
	int uneven; /* a tick came 400 ms or more after it was due */
};

static int tick(void *arg, long ms)
{
	struct ticks *t = arg;
	t->n++;
	if (ms - t->last_ms > 200 + 400)
		t->uneven = 1;
	t->last_ms = ms;
	return ms >= t->cancel_ms;
}

/* One add of `host` with watch w: it must come back cancelled, with
 * the master's reason, between min_s and max_s. */
static void add_cancelled(char *host, struct lpvm_addwatch *w, double min_s,
			  double max_s)
{
	int info = 777;
	double t0 = t_now();
	int cc = lpvm_priv_addhosts(&host, 1, &info, w);
	double dt = t_now() - t0;
	EQ(cc, 0);
	EQ(info, PvmCantStart);
	EQ(w->cancelled, 1);
	const char *why = lpvm_priv_addhost_why(0);
	CHECK(why && !strncmp(why, "cancelled", 9), "why: %s",
	      why ? why : "(none)");
	/* (the library counts whole milliseconds: its 3000 may be 2999.x) */
	CHECK(dt >= min_s - 0.002 && dt <= max_s,
	      "answered after %.4f s, not in %g-%g", dt, min_s, max_s);
	printf("cancelled after %.2f s: %s\n", dt, why ? why : "");
}

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char *host = argc > 2 ? argv[2] : "";
	if (pvm_mytid() < 0)
		return 1;
	if (!strcmp(mode, "tick")) {
		struct ticks t = {.cancel_ms = 1000};
		struct lpvm_addwatch w = {200, tick, &t, NULL, 0};
		add_cancelled(host, &w, 0.9, 2.5);
		CHECK(t.n >= 3 && t.n <= 7, "%d ticks in 1 s", t.n);
		CHECK(!t.uneven, "a tick came late");
	} else if (!strcmp(mode, "flag")) {
		struct ticks t = {.cancel_ms = 1000000};
		struct lpvm_addwatch w = {60000, tick, &t, &stop, 0};
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_alarm;
		sigaction(SIGALRM, &sa, NULL);
		alarm(1);
		add_cancelled(host, &w, 0.9, 2.5);
		EQ(t.n, 0);
	} else if (!strcmp(mode, "wait")) {
		struct ticks t = {.cancel_ms = 1000L * atoi(argv[3])};
		struct lpvm_addwatch w = {200, tick, &t, NULL, 0};
		add_cancelled(host, &w, t.cancel_ms / 1000.0, 60);
	} else if (!strcmp(mode, "other")) {
		/* a wid of no request of ours, then all of ours (none) */
		int32_t wids[] = {12345, 0};
		for (int i = 0; i < 2; i++) {
			struct wire_wr w;
			wire_wr_init(&w);
			wire_wr_i32(&w, wids[i]);
			struct wire_rd rd;
			uint8_t *mem;
			int st =
				lpvm_priv_ctl(WIRE_TM_ADDCANCEL, &w, &rd, &mem);
			wire_wr_free(&w);
			free(mem);
			EQ(st, 0);
		}
	} else {
		fprintf(stderr, "usage: pt_addcancel tick|flag|wait|other "
				"[HOST [SECS]]\n");
		return 2;
	}
	pvm_exit();
	return t_done(mode);
}
