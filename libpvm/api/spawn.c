/*
 * spawn.c - pvm_spawn: one TM_SPAWN request (docs/protocol.md) carrying
 * the program, its arguments, where to start it, our current context,
 * the exported environment and where the children's output goes.  The
 * pvmd finds the program (man 1 pvmd3), starts the copies and answers
 * with a tid or an error code for each.
 */
#include "api.h"

#include <stdlib.h>

/* Copies the pvmd's answers to `out`, tids first and error codes after,
 * each in their order (man 3 pvm_spawn: "the first numt tids in the
 * array are always valid").  Returns the number of tids. */
static int place(int *out, const int *v, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (v[i] > 0)
			out[k++] = v[i];
	int started = k;
	for (int i = 0; i < n; i++)
		if (v[i] <= 0)
			out[k++] = v[i] < 0 ? v[i] : PvmSysErr;
	return started;
}

int pvm_spawn(char *task, char **argv, int flag, char *where, int ntask,
	      int *tids)
{
	int r = lp_api_enroll("pvm_spawn");
	if (r < 0)
		return r;
	if (!task || ntask < 1)
		return lp_err("pvm_spawn", PvmBadParam);

	int *out = tids ? tids : malloc(sizeof *out * (size_t)ntask);
	if (!out)
		return lp_err("pvm_spawn", PvmNoMem);
	if (!*task) {
		/* no program has an empty name (the reference says the same) */
		for (int i = 0; i < ntask; i++)
			out[i] = PvmNoFile;
		if (out != tids)
			free(out);
		return 0;
	}

	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_str(&w, task);
	wire_wr_i32(&w, flag);
	wire_wr_str(&w, where ? where : "");
	wire_wr_i32(&w, ntask);
	wire_wr_i32(&w, lp.ctx); /* children start in our current context */
	int argc = 0;
	while (argv && argv[argc])
		argc++;
	wire_wr_i32(&w, argc);
	for (int i = 0; i < argc; i++)
		wire_wr_str(&w, argv[i]);
	int st = lp_api_export_env(&w);
	wire_wr_i32(&w, lp.outtid);
	wire_wr_i32(&w, lp.outctx);
	wire_wr_i32(&w, lp.outtag);
	if (st >= 0 && w.len > WIRE_MAX_CTRL)
		st = PvmBadParam; /* arguments and environment too long */

	int started = 0;
	if (st >= 0) {
		struct wire_rd rd;
		uint8_t *mem;
		st = lp_api_call(WIRE_TM_SPAWN, &w, &rd, &mem);
		if (st >= 0) {
			int n = wire_rd_count(&rd, 4);
			if (n != ntask || st > ntask)
				rd.err = 1;
			int *v = rd.err ? NULL : malloc(sizeof *v * (size_t)n);
			for (int i = 0; v && i < n; i++)
				v[i] = wire_rd_i32(&rd);
			if (rd.err)
				st = PvmBadMsg;
			else if (!v)
				st = PvmNoMem;
			else
				started = place(out, v, n);
			free(v);
		}
		free(mem);
	}
	wire_wr_free(&w);
	if (st < 0) {
		for (int i = 0; i < ntask; i++)
			out[i] = st;
		started = lp_err("pvm_spawn", st);
	}
	if (out != tids)
		free(out);
	return started;
}
