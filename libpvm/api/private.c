/*
 * private.c - libpvm3's private interface for libgpvm3 and pvmgroups
 * (lpvm_priv.h): a raw control call to the pvmd, the error reporter, the
 * count of group-change events and the sizes of the datatypes.
 */
#include "api.h"
#include "lpvm_priv.h"
#include "pack/pack.h"
#include "tran/conn.h"
#include "tran/poll.h"
#include "tran/tran.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int lpvm_priv_ctl(int code, const struct wire_wr *req, struct wire_rd *rd,
		  uint8_t **mem)
{
	*mem = NULL;
	if (!rd || code <= 0 || code >= WIRE_TM_MAX)
		return PvmBadParam;
	int was = lp.enrolled;
	int r = lp_enroll();
	if (r < 0)
		return r;
	if (!was)
		lp_api_sync();
	return lp_api_call(code, req, rd, mem);
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

void lpvm_priv_stderr(const char *text)
{
	lp_stderr("%s", text);
}

size_t lpvm_priv_dtype_size(int datatype)
{
	return lp_dtype_size(datatype);
}

int lpvm_priv_err(const char *fn, int code)
{
	return lp_err(fn ? fn : "(null)", code);
}

void lpvm_priv_rx_stats(uint64_t *bytes, uint64_t *copied)
{
	*bytes = lp_rx_stats.bytes;
	*copied = lp_rx_stats.copied;
}
