/*
 * mhf.c - message handlers: pvm_addmhf, pvm_delmhf, pvmdisplaymhfinfo.
 *
 * A handler matches messages by source, tag and context (-1: any).  A
 * matching message is taken out of the receive queue and given to the
 * handler the next time the library looks at incoming messages on the
 * program's behalf (every receive and probe, and after every send): see
 * lp_mhf_run, called from libpvm/msg.  A normal receive never sees it.
 * Handlers are not run from inside a handler (the reference forbids
 * receives there), so a handler that sends never recurses.
 */
#include "msg.h"

#include <stdio.h>
#include <stdlib.h>

#include "lpvm.h"

struct mhf {
	int used;
	int src, tag, ctx;
	int (*f)(int);
};

static struct mhf *tab; /* the id is the index */
static int ntab, nused;
static int running; /* inside a handler */

static int wild_eq(int a, int b)
{
	return a == -1 || b == -1 || a == b;
}

int pvm_addmhf(int src, int tag, int ctx, int (*f)(int))
{
	if (!f)
		return lp_err("pvm_addmhf", PvmBadParam);
	int id = -1;
	for (int i = 0; i < ntab; i++) {
		if (!tab[i].used) {
			if (id < 0)
				id = i;
			continue;
		}
		/* overlapping with an existing one, wildcards included */
		if (wild_eq(tab[i].src, src) && wild_eq(tab[i].tag, tag) &&
		    wild_eq(tab[i].ctx, ctx))
			return lp_err("pvm_addmhf", PvmExists);
	}
	if (id < 0) {
		struct mhf *n = realloc(tab, (size_t)(ntab + 1) * sizeof *n);
		if (!n)
			return lp_err("pvm_addmhf", PvmNoMem);
		tab = n;
		id = ntab++;
	}
	tab[id] = (struct mhf){
		.used = 1, .src = src, .tag = tag, .ctx = ctx, .f = f};
	nused++;
	return id;
}

int pvm_delmhf(int mhid)
{
	if (mhid < 0)
		return lp_err("pvm_delmhf", PvmBadParam);
	if (mhid >= ntab || !tab[mhid].used)
		return lp_err("pvm_delmhf", PvmNotFound);
	tab[mhid].used = 0;
	nused--;
	return 0;
}

static struct mhf *match(const struct lp_buf *b)
{
	for (int i = 0; i < ntab; i++)
		if (tab[i].used && (tab[i].src == -1 || tab[i].src == b->src) &&
		    (tab[i].tag == -1 || tab[i].tag == b->tag) &&
		    (tab[i].ctx == -1 || tab[i].ctx == b->ctx))
			return &tab[i];
	return NULL;
}

int lp_mhf_match(const struct lp_buf *b)
{
	return nused && match(b) != NULL;
}

int lp_mhf_run(const struct lp_buf *stop)
{
	if (running || !nused)
		return 0;
	struct lp_buf *b;
	struct mhf *h = NULL;
	for (b = lp_rxq_head(); b && b != stop; b = b->qnext)
		if ((h = match(b)))
			break;
	if (!b || b == stop)
		return 0;
	running = 1;
	lp_rxq_unlink(b);
	/* the handler gets a fresh state: no send buffer, the message as
	 * receive buffer; the program's buffers come back after */
	int sbf = lp_sbuf, rbf = lp_rbuf, id = b->id;
	lp_sbuf = 0;
	lp_rbuf = id;
	h->f(id);
	if (lp_buf_get(id) == b)
		lp_buf_free(b);
	lp_sbuf = lp_buf_get(sbf) ? sbf : 0;
	lp_rbuf = lp_buf_get(rbf) ? rbf : 0;
	running = 0;
	return 1;
}

void lp_mhf_run_all(void)
{
	while (lp_mhf_run(NULL))
		;
}

void lp_mhf_reset(void)
{
	free(tab);
	tab = NULL;
	ntab = nused = 0;
}

/* The table, in the layout of the reference's (which also lists its own
 * internal handlers; ours has none). */
void pvmdisplaymhfinfo(char *who, char *msg, int tid)
{
	const char *w = who ? who : "";
	int fl = -1;
	for (int i = 0; i < ntab && fl < 0; i++)
		if (!tab[i].used)
			fl = i;
	printf("\n%s t%x: Display Message Handler Information: "
	       "ndhandles = %d\tnhandles = %d\tfl_dhandles = %d\n",
	       w, (unsigned)tid, ntab, nused, fl);
	printf("pvmdisplaymhfinfo: free list.  head <- ");
	for (int i = 0; i < ntab; i++)
		if (!tab[i].used)
			printf("%d ", i);
	printf("-< tail\n");
	printf("%s t%x: %s\n", w, (unsigned)tid, msg ? msg : "");
	/* a deleted slot shows mhid -1, as in the reference */
	for (int i = 0; i < ntab; i++)
		printf("%s t%x: dhandles[%2d].mhid = %2d  .handle = %2d     "
		       "handles[%2d].mhid = %2d  .header.src = t%-8x  "
		       ".header.ctx = %8d  .header.tag= %8d\n",
		       w, (unsigned)tid, i, tab[i].used ? i : -1, i, i, i,
		       (unsigned)tab[i].src, tab[i].ctx, tab[i].tag);
	printf("\n\n");
}
