/*
 * call.c - what every entry point of api/ shares: enrollment, one control
 * call to the pvmd, tid checks, and the variables programs read.
 */
#include "api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "msg/msg.h"
#include "proto/vmdir.h"

/* The current context, for programs that read it (srm.pvm does). */
int pvmmyctx = 0;

/* Output and trace destinations given to children (layout of PVM 3.4.6). */
struct Pvmtracer pvmctrc;

void lp_api_sync(void)
{
	pvmmyctx = lp.ctx;
	pvmctrc.trctid = lp.trctid;
	pvmctrc.trcctx = lp.trcctx;
	pvmctrc.trctag = lp.trctag;
	pvmctrc.outtid = lp.outtid;
	pvmctrc.outctx = lp.outctx;
	pvmctrc.outtag = lp.outtag;
	pvmctrc.trcbuf = lp.trcbuf;
	pvmctrc.trcopt = lp.trcopt;
	/* an empty trace mask as the reference shows it after enrolling:
	 * every character '@', then the NUL */
	if (!pvmctrc.tmask[0]) {
		memset(pvmctrc.tmask, '@', TEV_MASK_LENGTH - 1);
		pvmctrc.tmask[TEV_MASK_LENGTH - 1] = '\0';
	}
}

void lp_api_left(void)
{
	lp_disconnect();
	lp_msg_reset();
	lp_buf_caches_free();
	lp_output_reset();
	lp_api_sync();
}

/* The hooks through which the layers below reach this one. */
__attribute__((constructor)) static void register_hooks(void)
{
	lp_enroll_set_hook(lp_api_sync);
	lp_msg_set_filter(lp_output_msg);
	lp_err_set_leave(pvm_exit);
}

/* After "Can't contact local daemon": which machine was looked for, where
 * its socket would be, and which machines of the user do run (a wrong or
 * missing PVM_VMID is the usual cause). */
static void explain_no_pvmd(void)
{
	const char *vmid = getenv("PVM_VMID");
	char sock[700], list[1024];
	if (vmdir_file(sock, sizeof sock, VMDIR_SOCK) < 0)
		snprintf(sock, sizeof sock,
			 "(none: PVM_VMID is no plain name)");
	int n = vmdir_list_running(list, sizeof list);
	lp_stderr("libpvm [pid%d]: no pvmd runs for PVM_VMID=%s (socket %s)\n",
		  (int)getpid(), vmid && *vmid ? vmid : "(unset)", sock);
	lp_stderr("libpvm [pid%d]: virtual machines of this user running: "
		  "%s\n",
		  (int)getpid(), n ? list : "none");
}

int lp_api_enroll(const char *fn)
{
	int was = lp.enrolled;
	int r = lp_enroll();
	if (r < 0) {
		lp_err(fn, r);
		if (r == PvmSysErr && lp_autoerr && lp_enroll_no_pvmd())
			explain_no_pvmd();
		return r;
	}
	if (!was)
		lp_api_sync();
	return 0;
}

static int call(int code, const struct wire_wr *req, struct wire_rd *rd,
		uint8_t **mem, struct lp_ctl_watch *w)
{
	size_t len = 0;
	*mem = NULL;
	if (req && req->err)
		return PvmNoMem;
	int r = lp_ctl_call_watched(code, req, mem, &len, w);
	if (r < 0) {
		*mem = NULL;
		return r;
	}
	wire_rd_init(rd, *mem, len);
	int status = wire_rd_i32(rd);
	if (rd->err) {
		free(*mem);
		*mem = NULL;
		return PvmBadMsg;
	}
	return status;
}

/* Names of the control codes, for PvmDebugMask output. */
static const char *const ctl_names[WIRE_TM_MAX] = {
	[WIRE_TM_CONNECT] = "TM_CONNECT",
	[WIRE_TM_EXIT] = "TM_EXIT",
	[WIRE_TM_SPAWN] = "TM_SPAWN",
	[WIRE_TM_TASKS] = "TM_TASKS",
	[WIRE_TM_CONFIG] = "TM_CONFIG",
	[WIRE_TM_MSTAT] = "TM_MSTAT",
	[WIRE_TM_PSTAT] = "TM_PSTAT",
	[WIRE_TM_KILL] = "TM_KILL",
	[WIRE_TM_SIGNAL] = "TM_SIGNAL",
	[WIRE_TM_NOTIFY] = "TM_NOTIFY",
	[WIRE_TM_CONTEXT] = "TM_CONTEXT",
	[WIRE_TM_HALT] = "TM_HALT",
	[WIRE_TM_SIBLINGS] = "TM_SIBLINGS",
	[WIRE_TM_SETOPT] = "TM_SETOPT",
	[WIRE_TM_NORESETS] = "TM_NORESETS",
	[WIRE_TM_MBOX_PUT] = "TM_MBOX_PUT",
	[WIRE_TM_MBOX_GET] = "TM_MBOX_GET",
	[WIRE_TM_MBOX_DEL] = "TM_MBOX_DEL",
	[WIRE_TM_MBOX_LIST] = "TM_MBOX_LIST",
	[WIRE_TM_GS_JOIN] = "TM_GS_JOIN",
	[WIRE_TM_GS_LEAVE] = "TM_GS_LEAVE",
	[WIRE_TM_GS_INFO] = "TM_GS_INFO",
	[WIRE_TM_GS_BARRIER] = "TM_GS_BARRIER",
	[WIRE_TM_GS_FREEZE] = "TM_GS_FREEZE",
	[WIRE_TM_GS_LIST] = "TM_GS_LIST",
	[WIRE_TM_GS_EVENT] = "TM_GS_EVENT",
	[WIRE_TM_ADDHOST] = "TM_ADDHOST",
	[WIRE_TM_DELHOST] = "TM_DELHOST",
	[WIRE_TM_HOSTSYNC] = "TM_HOSTSYNC",
	[WIRE_TM_ROUTEADDR] = "TM_ROUTEADDR",
	[WIRE_TM_REGHOSTER] = "TM_REGHOSTER",
	[WIRE_TM_TASKEND] = "TM_TASKEND",
	[WIRE_TM_SPAWNPATH] = "TM_SPAWNPATH",
	[WIRE_TM_ADDCANCEL] = "TM_ADDCANCEL",
};

void lp_api_debug_call(int code, size_t reqlen, int status)
{
	const char *name = code > 0 && code < WIRE_TM_MAX && ctl_names[code]
				   ? ctl_names[code]
				   : "TM_?";
	lp_stderr("libpvm [t%x] %s: request %zu bytes, status %d\n",
		  (unsigned)lp.mytid, name, reqlen, status);
}

int lp_api_call(int code, const struct wire_wr *req, struct wire_rd *rd,
		uint8_t **mem)
{
	return lp_api_call_watched(code, req, rd, mem, NULL);
}

int lp_api_call_watched(int code, const struct wire_wr *req, struct wire_rd *rd,
			uint8_t **mem, struct lp_ctl_watch *w)
{
	int status = call(code, req, rd, mem, w);
	if (lp.debugmask)
		lp_api_debug_call(code, req ? req->len : 0, status);
	return status;
}

int lp_api_task_tid(int tid)
{
	return tid > 0 && !(tid & WIRE_TID_MCAST) &&
	       (tid & WIRE_TID_HOST_MASK) != 0 &&
	       (tid & WIRE_TID_TASK_MASK) != 0;
}

int lp_api_status(int code, struct wire_wr *req)
{
	struct wire_rd rd;
	uint8_t *mem;
	int st = lp_api_call(code, req, &rd, &mem);
	wire_wr_free(req);
	free(mem);
	return st;
}
