/*
 * catchout.c - pvm_catchout: the output of children (and of their
 * children, unless they move it) printed by the parent.
 *
 * pvm_catchout(ff) makes this task the output destination of the tasks it
 * spawns from now on, with the reference's tag and context (TC_OUTPUT in
 * SYSCTX_TC, so no receive of the program ever matches them).  The pvmd
 * sends each such task's output as messages (docs/protocol.md, "Output of
 * spawned tasks"); the receive side hands them here as they arrive
 * (lp_output_msg, called from msg/rxq.c inside whatever PVM call is
 * reading), and they are printed on `ff` a line at a time, per task:
 *
 *   [t40005] BEGIN          on the task's start message (-1)
 *   [t40005] text           each line; a last line without a newline
 *                           gets one when the task's output ends
 *   [t40005] EOF            when it ends (0)
 *
 * With PvmShowTids 0 only the text is printed (still whole lines, so
 * that lines of different tasks do not mix), as the reference does.
 * Bytes are written as they came, NUL bytes included (the reference
 * truncates a line at a NUL).
 *
 * pvm_exit waits until every task that started sending us output has
 * ended it, as long as collection is on (man 3 pvm_catchout).  After
 * pvm_catchout(0), output still arriving from earlier children goes to
 * the last stream given (the reference drops it with a complaint).
 *
 * The other side: a task the pvmd started writes its stdout into a pipe,
 * so stdio would hold it in a 4 KiB buffer until exit and lose it in a
 * crash.  Such a task gets a line-buffered stdout before main runs, and,
 * unless the program installs its own, handlers that flush stdout and
 * stderr when a fatal signal (SIGSEGV...) arrives and then die of it, so
 * that a last line without a newline still reaches the parent.  (The
 * reference does neither: its children's output comes at exit, and what
 * a crashing child printed is lost.)
 */
#include "api.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "msg/msg.h"
#include "tran/tran.h"

/* The stream of the last pvm_catchout(ff) (NULL: collection off). */
FILE *lp_catchout_fp;
/* Where collected output goes: lp_catchout_fp, or the last one given. */
static FILE *outfp;

/* Output message codes in the count field. */
#define OUT_EOF	  0
#define OUT_BEGIN (-1)
#define OUT_NEW	  (-2)

struct otask {
	struct otask *next;
	int tid;
	char *line; /* the current line, not yet printed */
	size_t len, cap;
};

static struct otask *otasks;

static struct otask *ot_find(int tid, int create)
{
	for (struct otask *t = otasks; t; t = t->next)
		if (t->tid == tid)
			return t;
	if (!create)
		return NULL;
	struct otask *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->tid = tid;
	t->next = otasks;
	otasks = t;
	return t;
}

static void ot_free(struct otask *t)
{
	for (struct otask **pp = &otasks; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	free(t->line);
	free(t);
}

static FILE *dest(void)
{
	return outfp ? outfp : stdout;
}

static void put_line(int tid, const char *s, size_t n, int newline)
{
	FILE *f = dest();
	if (lp.showtids)
		fprintf(f, "[t%x] ", (unsigned)tid);
	fwrite(s, 1, n, f);
	if (newline)
		fputc('\n', f);
}

/* Prints the complete lines of `s`; keeps the rest for later. */
static void text(struct otask *t, const char *s, size_t n)
{
	while (n) {
		const char *nl = memchr(s, '\n', n);
		size_t k = nl ? (size_t)(nl - s) + 1 : n;
		if (!nl) {
			if (t->len + k > t->cap) {
				size_t cap = t->cap ? t->cap : 256;
				while (cap < t->len + k)
					cap *= 2;
				char *p = realloc(t->line, cap);
				if (!p) {
					/* no room to hold it: print what we
					 * have */
					put_line(t->tid, t->line, t->len, 0);
					put_line(t->tid, s, k, 1);
					t->len = 0;
					return;
				}
				t->line = p;
				t->cap = cap;
			}
			memcpy(t->line + t->len, s, k);
			t->len += k;
			return;
		}
		if (t->len) {
			FILE *f = dest();
			if (lp.showtids)
				fprintf(f, "[t%x] ", (unsigned)t->tid);
			fwrite(t->line, 1, t->len, f);
			fwrite(s, 1, k, f);
			t->len = 0;
		} else {
			put_line(t->tid, s, k, 0);
		}
		s += k;
		n -= k;
	}
}

static int32_t be32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			 (uint32_t)p[2] << 8 | p[3]);
}

int lp_output_msg(struct lp_buf *b)
{
	if (b->src != WIRE_TID_PVMD_SRC || b->tag != LP_OUTPUT_TAG ||
	    b->ctx != LP_OUTPUT_CTX)
		return 0;
	const uint8_t *p = b->data;
	size_t len = b->len;
	if (len < 8 || b->enc != PvmDataDefault) {
		lp_buf_free(b); /* not what a pvmd sends: ignore it */
		return 1;
	}
	int tid = be32(p), n = be32(p + 4);
	struct otask *t = ot_find(tid, n != OUT_EOF);
	if (n > 0 && (size_t)n <= len - 8) {
		if (t)
			text(t, (const char *)p + 8, (size_t)n);
	} else if (n == OUT_BEGIN) {
		if (lp.showtids)
			fprintf(dest(), "[t%x] BEGIN\n", (unsigned)tid);
	} else if (n == OUT_EOF && t) {
		if (t->len)
			put_line(tid, t->line, t->len, 1);
		if (lp.showtids)
			fprintf(dest(), "[t%x] EOF\n", (unsigned)tid);
		ot_free(t);
	}
	/* OUT_NEW: the task is known now (pvm_exit waits for it) */
	fflush(dest());
	lp_buf_free(b);
	return 1;
}

int pvm_catchout(FILE *ff)
{
	/* The man page promises 0 whatever happens: an enrollment failure
	 * is reported (PvmAutoErr) and the call does nothing. */
	if (lp_api_enroll("pvm_catchout") < 0)
		return 0;
	if (ff) {
		lp.outtid = lp.mytid;
		lp.outtag = LP_OUTPUT_TAG;
		lp.outctx = LP_OUTPUT_CTX;
		outfp = ff;
	} else {
		/* later children's output goes to the pvmd log again */
		lp.outtid = 0;
		if (lp.outtag == LP_OUTPUT_TAG && lp.outctx == LP_OUTPUT_CTX)
			lp.outtag = lp.outctx = 0;
	}
	lp_catchout_fp = ff;
	lp_api_sync();
	return 0;
}

void lp_output_wait(void)
{
	if (!lp_catchout_fp || !otasks)
		return;
	lp_stderr("libpvm [t%x]: child task(s) still running.  waiting...\n",
		  (unsigned)lp.mytid);
	while (otasks && lp_pvmd_conn() && !lp_pvmd_lost)
		if (lp_progress(NULL) < 0)
			break;
}

void lp_output_reset(void)
{
	while (otasks) {
		struct otask *t = otasks;
		if (t->len)
			put_line(t->tid, t->line, t->len, 1);
		ot_free(t);
	}
	if (outfp)
		fflush(outfp);
	lp_catchout_fp = NULL;
}

/* ---- stdio of a spawned task ---- */

static const int fatal_sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

static void flush_and_die(int sig)
{
	/* SA_RESETHAND made the action the default again and SA_NODEFER
	 * lets a fault in here kill at once: flush, then die of `sig`.
	 * (stdio locks are recursive, so a crash inside stdio does not
	 * deadlock here.) */
	fflush(stdout);
	fflush(stderr);
	raise(sig);
}

__attribute__((constructor)) static void spawned_stdio(void)
{
	struct stat st;
	if (!getenv(WIRE_ENV_SPAWN_TID) || fstat(1, &st) < 0 ||
	    !S_ISFIFO(st.st_mode))
		return;
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = flush_and_die;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof fatal_sigs / sizeof *fatal_sigs; i++) {
		struct sigaction old;
		if (sigaction(fatal_sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_DFL)
			sigaction(fatal_sigs[i], &sa, NULL);
	}
}
