/*
 * info.c - what the virtual machine holds: pvm_config, pvm_tasks,
 * pvm_mstat, pvm_pstat, pvm_archcode.  The arrays pvm_config and
 * pvm_tasks return belong to the library and are replaced by the next
 * call, as in the reference.
 */
#include "api.h"

#include <stdlib.h>
#include <string.h>

static struct pvmhostinfo *hosts;
static int nhosts;
static struct pvmtaskinfo *tasks;
static int ntasks;

static void free_hosts(struct pvmhostinfo *h, int n)
{
	for (int i = 0; h && i < n; i++) {
		free(h[i].hi_name);
		free(h[i].hi_arch);
	}
	free(h);
}

static void free_tasks(struct pvmtaskinfo *t, int n)
{
	for (int i = 0; t && i < n; i++)
		free(t[i].ti_a_out);
	free(t);
}

/* Fetches the host table into a new array (*hp, *np); returns the
 * number of architectures, or an error code. */
static int fetch_config(struct pvmhostinfo **hp, int *np)
{
	struct wire_rd rd;
	uint8_t *mem;
	int st = lp_api_call(WIRE_TM_CONFIG, NULL, &rd, &mem);
	if (st < 0) {
		free(mem);
		return st;
	}
	/* each host: tid, name, arch, speed, dsig (at least 20 bytes) */
	int n = wire_rd_count(&rd, 20);
	int narch = wire_rd_i32(&rd);
	struct pvmhostinfo *h = calloc((size_t)(n ? n : 1), sizeof *h);
	int i;
	for (i = 0; h && !rd.err && i < n; i++) {
		h[i].hi_tid = wire_rd_i32(&rd);
		h[i].hi_name = wire_rd_strdup(&rd);
		h[i].hi_arch = wire_rd_strdup(&rd);
		h[i].hi_speed = wire_rd_i32(&rd);
		h[i].hi_dsig = wire_rd_i32(&rd);
	}
	free(mem);
	if (!h)
		return PvmNoMem;
	if (rd.err || narch < 0) {
		free_hosts(h, i);
		return PvmBadMsg;
	}
	*hp = h;
	*np = n;
	return narch;
}

int pvm_config(int *nhostp, int *narchp, struct pvmhostinfo **hostp)
{
	int r = lp_api_enroll("pvm_config");
	if (r < 0)
		return r;
	struct pvmhostinfo *h;
	int n, narch = fetch_config(&h, &n);
	if (narch < 0)
		return lp_err("pvm_config", narch);
	free_hosts(hosts, nhosts);
	hosts = h;
	nhosts = n;
	if (nhostp)
		*nhostp = nhosts;
	if (narchp)
		*narchp = narch;
	if (hostp)
		*hostp = hosts;
	return 0;
}

int pvm_tasks(int where, int *ntaskp, struct pvmtaskinfo **taskp)
{
	int r = lp_api_enroll("pvm_tasks");
	if (r < 0)
		return r;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, where);
	struct wire_rd rd;
	uint8_t *mem;
	int st = lp_api_call(WIRE_TM_TASKS, &w, &rd, &mem);
	wire_wr_free(&w);
	if (st < 0) {
		free(mem);
		if (ntaskp)
			*ntaskp = 0;
		return lp_err("pvm_tasks", st);
	}
	/* each task: tid, ptid, host, flag, a.out, pid (at least 24 bytes) */
	int n = wire_rd_count(&rd, 24);
	struct pvmtaskinfo *t = calloc((size_t)(n ? n : 1), sizeof *t);
	int i;
	for (i = 0; t && !rd.err && i < n; i++) {
		t[i].ti_tid = wire_rd_i32(&rd);
		t[i].ti_ptid = wire_rd_i32(&rd);
		t[i].ti_host = wire_rd_i32(&rd);
		t[i].ti_flag = wire_rd_i32(&rd);
		t[i].ti_a_out = wire_rd_strdup(&rd);
		t[i].ti_pid = wire_rd_i32(&rd);
	}
	free(mem);
	if (!t || rd.err) {
		free_tasks(t, i);
		if (ntaskp)
			*ntaskp = 0;
		return lp_err("pvm_tasks", t ? PvmBadMsg : PvmNoMem);
	}
	free_tasks(tasks, ntasks);
	tasks = t;
	ntasks = n;
	if (ntaskp)
		*ntaskp = n;
	if (taskp)
		*taskp = tasks;
	return 0;
}

int pvm_mstat(char *host)
{
	if (!host || !*host)
		return lp_err("pvm_mstat", PvmBadParam);
	int r = lp_api_enroll("pvm_mstat");
	if (r < 0)
		return r;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_str(&w, host);
	int st = lp_api_status(WIRE_TM_MSTAT, &w);
	/* PvmNoHost and PvmHostFail are answers, not failures to report */
	if (st == PvmNoHost || st == PvmHostFail)
		return st;
	return lp_err("pvm_mstat", st < 0 ? st : 0);
}

int pvm_pstat(int tid)
{
	int r = lp_api_enroll("pvm_pstat");
	if (r < 0)
		return r;
	if (!lp_api_task_tid(tid))
		return lp_err("pvm_pstat", PvmBadParam);
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, tid);
	int st = lp_api_status(WIRE_TM_PSTAT, &w);
	/* No such task (also when its host does not exist): an answer,
	 * not a failure to report, as in the reference. */
	if (st == PvmNoTask || st == PvmNoHost)
		return PvmNoTask;
	return lp_err("pvm_pstat", st < 0 ? st : 0);
}

int pvm_archcode(char *arch)
{
	/* The data signature of an architecture present in the virtual
	 * machine (man 3 pvm_archcode), PvmNotFound for any other. */
	if (!arch)
		return lp_err("pvm_archcode", PvmBadParam);
	int r = lp_api_enroll("pvm_archcode");
	if (r < 0)
		return r;
	/* a table of its own: `arch` may point into pvm_config's */
	struct pvmhostinfo *h;
	int n, narch = fetch_config(&h, &n);
	if (narch < 0)
		return lp_err("pvm_archcode", narch);
	int code = PvmNotFound;
	for (int i = 0; i < n && code == PvmNotFound; i++)
		if (h[i].hi_arch && !strcmp(h[i].hi_arch, arch))
			code = h[i].hi_dsig;
	free_hosts(h, n);
	return lp_err("pvm_archcode", code);
}
