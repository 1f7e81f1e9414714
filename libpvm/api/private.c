/*
 * private.c - libpvm3's private interface for libgpvm3 and pvmgroups
 * (lpvm_priv.h): a raw control call to the pvmd, the error reporter and
 * the count of group-change events.
 */
#include "api.h"
#include "lpvm_priv.h"
#include "tran/conn.h"
#include "tran/poll.h"
#include "tran/tran.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int lpvm_priv_ctl(int code, const void *req, size_t reqlen, uint8_t **reply,
		  size_t *replylen)
{
	if (!reply || !replylen || (reqlen && !req) || code <= 0 ||
	    code >= WIRE_TM_MAX || reqlen > WIRE_MAX_CTRL)
		return PvmBadParam;
	*reply = NULL;
	*replylen = 0;

	int was = lp.enrolled;
	int r = lp_enroll();
	if (r < 0)
		return r;
	if (!was)
		lp_api_sync();

	/* lp_ctl_call takes a writer: lend it the caller's bytes (it only
	 * reads them). */
	struct wire_wr w = {.buf = (uint8_t *)req, .len = reqlen,
			    .cap = reqlen, .err = 0};
	r = lp_ctl_call(code, reqlen ? &w : NULL, reply, replylen);
	if (r < 0) {
		*reply = NULL;
		*replylen = 0;
	}
	if (lp.debugmask) {
		int status = r;
		if (r == 0) {
			struct wire_rd rd;
			wire_rd_init(&rd, *reply, *replylen);
			status = wire_rd_i32(&rd);
			if (rd.err)
				status = PvmBadMsg;
		}
		lp_api_debug_call(code, reqlen, status);
	}
	return r < 0 ? r : 0;
}

unsigned lpvm_priv_gs_epoch(void)
{
	static const struct timespec now = {0, 0};
	if (lp.enrolled)
		lp_progress(&now);
	return lp_gs_epoch;
}

int lpvm_priv_progress(void)
{
	static const struct timespec now = {0, 0};
	if (!lp.enrolled)
		return 0;
	struct lp_conn *c = lp_pvmd_conn();
	if (!(c && lp_conn_pending(c)) && !lp_route_pending())
		return 0; /* the common case: no system call */
	lp_progress(&now);
	c = lp_pvmd_conn();
	return (c && lp_conn_pending(c)) || lp_route_pending();
}

int lpvm_priv_err(const char *fn, int code)
{
	return lp_err(fn ? fn : "(null)", code);
}
