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

int lpvm_priv_pack(int datatype, void *p, int nitem, int stride, int unpack)
{
	return lp_pack_dtype(datatype, p, nitem, stride, unpack);
}

const char *lpvm_priv_errstr(int code)
{
	return lp_errstr(code);
}

int lpvm_priv_err(const char *fn, int code)
{
	return lp_err(fn ? fn : "(null)", code);
}

int lpvm_priv_taskend(int tid, struct lpvm_taskend *end)
{
	struct wire_wr w;
	struct wire_rd rd;
	uint8_t *mem = NULL;
	wire_wr_init(&w);
	wire_wr_i32(&w, tid);
	int st = lpvm_priv_ctl(WIRE_TM_TASKEND, &w, &rd, &mem);
	wire_wr_free(&w);
	memset(end, 0, sizeof *end);
	if (mem) {
		int state = wire_rd_i32(&rd);
		int code = wire_rd_i32(&rd);
		int core = wire_rd_i32(&rd);
		char *aout = wire_rd_strdup(&rd);
		if (rd.err) {
			st = st < 0 ? st : PvmBadMsg;
		} else {
			end->state = state;
			end->code = code;
			end->core = core;
			snprintf(end->aout, sizeof end->aout, "%s", aout);
		}
		free(aout);
	}
	free(mem);
	return st;
}

int lpvm_priv_spawnpath(char *buf, size_t size)
{
	struct wire_rd rd;
	uint8_t *mem = NULL;
	if (!buf || size == 0)
		return PvmBadParam;
	buf[0] = '\0';
	int st = lpvm_priv_ctl(WIRE_TM_SPAWNPATH, NULL, &rd, &mem);
	int n = 0;
	if (st >= 0) {
		n = wire_rd_i32(&rd);
		for (int i = 0; i < n && !rd.err; i++) {
			char *dir = wire_rd_strdup(&rd);
			if (!dir)
				break;
			size_t len = strlen(buf);
			snprintf(buf + len, size - len, "%s%s", i ? ":" : "",
				 dir);
			free(dir);
		}
		if (rd.err)
			st = PvmBadMsg;
	}
	free(mem);
	return st < 0 ? st : n;
}

void lpvm_priv_rx_stats(uint64_t *bytes, uint64_t *copied)
{
	*bytes = lp_rx_stats.bytes;
	*copied = lp_rx_stats.copied;
}
