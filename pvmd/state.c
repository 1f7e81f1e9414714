/*
 * state.c - a struct pvmd set to its start values, and freed with all it
 * holds.  main.c runs one daemon between the two; the fuzz harness
 * (pvmd/fuzz_pvmd.c) makes and frees one for each input.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/wire.h"
#include "pvmd/conn.h"
#include "pvmd/exits.h"
#include "pvmd/group.h"
#include "pvmd/host/host.h"
#include "pvmd/mbox.h"
#include "pvmd/notify.h"
#include "pvmd/output.h"
#include "pvmd/pvmd.h"
#include "pvmd/signals.h"
#include "pvmd/task.h"

void pvmd_state_init(struct pvmd *d)
{
	memset(d, 0, sizeof *d);
	d->listen_fd = d->sig_fd = d->lock_fd = -1;
	d->resv_src = -1;
	d->hosttid = wire_host_tid(PVMD_HOSTNO);
	d->next_tid = 1;
	d->next_ctx = 1;
	d->notify_tail = &d->notifies;
	d->arch = PVM_ARCH_NAME;
	idhash_init(&d->tasks);
	idhash_init(&d->children);
	idhash_init(&d->contexts);
	idhash_init(&d->mb_use);
	idhash_init(&d->notify_use);
	idhash_init(&d->gs_use);
}

/* The search path and the descriptors spawn.c set aside. */
static void spawn_free(struct pvmd *d)
{
	for (char **p = d->spawn_path; p && *p; p++)
		free(*p);
	free(d->spawn_path);
	d->spawn_path = NULL;
	while (d->nresv)
		close(d->resv[--d->nresv]);
	free(d->resv);
	d->resv = NULL;
	d->capresv = 0;
	if (d->resv_src >= 0)
		close(d->resv_src);
	d->resv_src = -1;
}

void pvmd_state_free(struct pvmd *d)
{
	pvmd_reap(d);
	conn_close_all(d);
	conn_before_sleep(d);
	output_close_all(d);
	/* What is left in the table never connected or is being closed. */
	while (d->tasks.count) {
		for (size_t i = 0; i < d->tasks.cap; i++) {
			if (d->tasks.slots[i].key) {
				task_exit(d, d->tasks.slots[i].val,
					  "pvmd exiting");
				break;
			}
		}
	}
	conn_before_sleep(d);
	notify_free_all(d);
	mbox_free_all(d);
	group_free_all(d);
	gshm_close(d);
	if (d->hosts)
		host_fini(d);
	spawn_free(d);
	exits_free(d);
	free(d->halt_pids);
	d->halt_pids = NULL;
	d->nhalt_pids = 0;
	if (d->listen_fd >= 0)
		close(d->listen_fd);
	d->listen_fd = -1;
	idhash_fini(&d->tasks);
	idhash_fini(&d->children);
	idhash_fini(&d->contexts);
	idhash_fini(&d->mb_use);
	idhash_fini(&d->notify_use);
	idhash_fini(&d->gs_use);
}
