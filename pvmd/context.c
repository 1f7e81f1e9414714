/*
 * context.c - message contexts (pvm_newcontext / pvm_freecontext).
 *
 * Like the reference, a new context is this host's tid plus a counter
 * (0x40001, 0x40002...), so ids are unique in the machine and never 0
 * (the base context).  The counter wraps and skips ids in use; the
 * contexts a task allocated are freed when it exits.  A task holds at
 * most CTX_TASK_MAX at once (then PvmOutOfRes), so that one task cannot
 * take the ids of all.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/context.h"
#include "pvmd/pvmd.h"
#include "pvmd/task.h"

/* Contexts one task may hold at once (docs/limits.md): the id space of a
 * host is shared by all its tasks. */
#define CTX_TASK_MAX 4096

int context_new(struct pvmd *d, int owner)
{
	struct task *t = task_find(d, owner);
	if (t && t->nctx >= CTX_TASK_MAX)
		return PvmOutOfRes;
	for (int i = 0; i < WIRE_TID_TASK_MASK; i++) {
		int part = d->next_ctx;
		d->next_ctx = part >= WIRE_TID_TASK_MASK ? 1 : part + 1;
		int ctx = d->hosttid | part;
		/* 0x7fff8-0x7ffff are the system contexts (output, groups):
		 * host 1's counter would reach them */
		if (ctx >= WIRE_CTX_SYSTEM_FIRST && ctx <= WIRE_CTX_SYSTEM_LAST)
			continue;
		if (idhash_get(&d->contexts, ctx))
			continue;
		if (idhash_put(&d->contexts, ctx, (void *)(intptr_t)owner) < 0)
			return PvmNoMem;
		if (t)
			t->nctx++;
		return ctx;
	}
	return PvmOutOfRes;
}

int context_free(struct pvmd *d, int owner, int ctx)
{
	(void)owner; /* any task may free a context, as in the reference */
	void *maker = idhash_del(&d->contexts, ctx);
	if (!maker)
		return PvmNotFound;
	/* it counts against the task that made it */
	struct task *t = task_find(d, (int)(intptr_t)maker);
	if (t && t->nctx > 0)
		t->nctx--;
	return 0;
}

void context_task_exit(struct pvmd *d, int owner)
{
	int mine[64];
	size_t n;
	do {
		n = 0;
		for (size_t i = 0; i < d->contexts.cap && n < 64; i++)
			if (d->contexts.slots[i].key &&
			    (intptr_t)d->contexts.slots[i].val == owner)
				mine[n++] = d->contexts.slots[i].key;
		for (size_t i = 0; i < n; i++)
			idhash_del(&d->contexts, mine[i]);
	} while (n == 64);
}
