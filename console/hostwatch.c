/*
 * hostwatch.c - "Console: N new hosts added": hosts that another task
 * (another console, a program, a pvmd's hostfile) adds to the virtual
 * machine are announced with their tid, arch and speed, as the reference
 * console does.  Hosts this console's own add command brought in are not
 * announced again (the reference does not either).
 *
 * The console asks for every PvmHostAdd notify (cnt -1); the message
 * holds a count and that many pvmd tids (man 3 pvm_notify).
 */
#include "console.h"

#include <stdlib.h>

#include "pvm3.h"

/* Far from job tags (jobs.c) and small user tags. */
#define HOSTADD_TAG 0x3ffffff0

/* Tids of hosts our own add command added (announced there already). */
static int *own;
static int nown, capown;

void hostwatch_clear(void)
{
	free(own);
	own = NULL;
	nown = capown = 0;
}

void hostwatch_start(void)
{
	CONS_QUIET(pvm_notify(PvmHostAdd, HOSTADD_TAG, -1, NULL));
}

void hostwatch_own(int tid)
{
	if (nown == capown) {
		int ncap = capown ? 2 * capown : 8;
		int *p = realloc(own, (size_t)ncap * sizeof *p);
		if (!p)
			return; /* then it is announced twice: harmless */
		own = p;
		capown = ncap;
	}
	own[nown++] = tid;
}

/* Forgets tid if it is one of ours; returns whether it was. */
static int take_own(int tid)
{
	for (int i = 0; i < nown; i++)
		if (own[i] == tid) {
			own[i] = own[--nown];
			return 1;
		}
	return 0;
}

int hostwatch_message(int bufid, int tag)
{
	if (tag != HOSTADD_TAG)
		return 0;
	int old = pvm_setrbuf(bufid);
	int n = 0;
	if (CONS_QUIET(pvm_upkint(&n, 1, 1)) < 0 || n < 1 || n > 4096) {
		pvm_setrbuf(old);
		return 1;
	}
	int *tids = calloc((size_t)n, sizeof *tids);
	if (!tids || CONS_QUIET(pvm_upkint(tids, n, 1)) < 0) {
		free(tids);
		pvm_setrbuf(old);
		return 1;
	}
	pvm_setrbuf(old);

	int nhost = 0, narch;
	struct pvmhostinfo *hosts = NULL;
	if (CONS_QUIET(pvm_config(&nhost, &narch, &hosts)) < 0)
		nhost = 0;
	/* the new hosts still in the machine and not added by us */
	int shown = 0;
	const struct pvmhostinfo **list = calloc((size_t)n, sizeof *list);
	for (int i = 0; list && i < n; i++) {
		if (take_own(tids[i]))
			continue;
		for (int j = 0; j < nhost; j++)
			if (hosts[j].hi_tid == tids[i]) {
				list[shown++] = &hosts[j];
				break;
			}
	}
	if (shown > 0) {
		term_async_begin();
		/* after the prompt a piped console has printed, on a line of
		 * its own (readline hides its line itself) */
		term_printf("%sConsole: %d new host%s added\n",
			    term_readline_active ? "" : "\n", shown,
			    shown == 1 ? "" : "s");
		term_printf("%24s %8s %8s %7s\n", "HOST", "DTID", "ARCH",
			    "SPEED");
		for (int i = 0; i < shown; i++)
			term_printf("%24s %8x %8s%8d\n", list[i]->hi_name,
				    (unsigned)list[i]->hi_tid, list[i]->hi_arch,
				    list[i]->hi_speed);
		term_async_end();
	}
	free(list);
	free(tids);
	return 1;
}
