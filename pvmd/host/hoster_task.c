/*
 * hoster_task.c - a task registered with pvm_reg_hoster starts the new
 * pvmds in the master's place (man 3 pvm_reg_hoster; docs/hosts.md,
 * "Registered hoster").
 *
 * For each host being added the master sends the hoster an SM_STHOST
 * message (PvmDataDefault, wait id set): i32 1, i32 the host's tid, str
 * so= options, str "[user@]host", str the command to run there.  The
 * command carries the startup values on its argument list, with a fresh
 * one-time ticket instead of the VM secret; the first link's handshake is
 * keyed with the ticket and brings the secret over (link.c).  The hoster
 * answers SM_STHOSTACK to our daemon address with the same wait id: {i32
 * tid, str status} until the body ends; status is the pvmd's line or the
 * name of an error code.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/ctl.h"
#include "pvmd/host/hostlayer.h"
#include "pvmd/host/hostfile.h"
#include "pvmd/log.h"
#include "pvmd/task.h"
#include "pvmproto.h"

int hoster_task_tid(const struct pvmd *d)
{
	return d->hosts->hoster_tid;
}

/* ---- TM_REGHOSTER: i32 on -> i32 status ---- */

int ctl_reghoster(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r)
{
	int on = wire_rd_i32(r);
	if (r->err || r->left)
		return -1;
	struct task *t = conn_task(c);
	int st = 0;
	if (!t || c->kind == CONN_LINK)
		st = PvmBadParam;
	else if (!d->hosts->master)
		st = PvmHostrNMstr; /* as the reference: only on the master */
	else if (on && d->hosts->hoster_tid && d->hosts->hoster_tid != t->tid)
		st = PvmAlready;
	else if (on) {
		d->hosts->hoster_tid = t->tid;
		plog(PL_INFO,
		     "t%x is the hoster: it starts the pvmds of hosts added",
		     t->tid);
	} else if (d->hosts->hoster_tid == t->tid) {
		hoster_task_exit(d, t->tid);
	}
	ctl_reply_status(d, c, h, st);
	return 0;
}

/* ---- SM_STHOST ---- */

/* The command being built: add_word appends to it. */
struct words {
	char *cmd;
	size_t size;
	int bad; /* it did not fit */
};

/* Appends ` '<key> <val>'` (` '<key>'` when val is NULL), single-quoted
 * for the remote shell. */
static void add_word(void *ctx, const char *key, const char *val)
{
	struct words *c = ctx;
	size_t k = strlen(c->cmd);
	/* the longest it can get: each ' of val becomes '\'' */
	size_t need = 4 + strlen(key) + (val ? 1 + 4 * strlen(val) : 0);
	if (c->bad || need >= c->size - k) {
		c->bad = 1;
		return;
	}
	char *cmd = c->cmd;
	cmd[k++] = ' ';
	cmd[k++] = '\'';
	for (const char *p = key; *p; p++)
		cmd[k++] = *p;
	if (val)
		cmd[k++] = ' ';
	for (const char *p = val; p && *p; p++) {
		if (*p == '\'') {
			memcpy(cmd + k, "'\\''", 4);
			k += 4;
		} else {
			cmd[k++] = *p;
		}
	}
	cmd[k++] = '\'';
	cmd[k] = 0;
}

/* "<dx>" -s -S 'version 1' 'vmid ..' ... 'ticket <hex>' 'end' */
static int ticket_command(const struct pvmd *d, const struct host *h,
			  const struct hostopt *o, char *cmd, size_t size)
{
	if (hoster_remote_command(o, cmd, size - 8) < 0)
		return -1;
	strcat(cmd, " -S");
	struct words c = {cmd, size, 0};
	hoster_startup_values(d, h, o, add_word, &c);
	char v[32];
	snprintf(v, sizeof v, "%u", hoster_start_timeout());
	add_word(&c, "ticketlife", v);
	/* binds the ticket to our secret without showing it */
	uint8_t commit[AUTH_MAC_LEN];
	char chex[2 * AUTH_MAC_LEN + 1], hex[2 * AUTH_SECRET_LEN + 1];
	auth_mac(d->hosts->secret, "pvmd-secret-commit", h->ticket, h->ticket,
		 commit);
	auth_hex(commit, AUTH_MAC_LEN, chex);
	add_word(&c, "commit", chex);
	auth_hex(h->ticket, AUTH_SECRET_LEN, hex);
	add_word(&c, "ticket", hex);
	explicit_bzero(hex, sizeof hex);
	add_word(&c, "end", NULL);
	return c.bad ? -1 : 0;
}

int hoster_task_start(struct pvmd *d, struct host *h, const struct hostopt *o)
{
	struct task *t = task_find(d, d->hosts->hoster_tid);
	if (!t || !t->conn)
		return PvmCantStart;
	if (auth_random(h->ticket, AUTH_SECRET_LEN) < 0)
		return PvmSysErr;
	h->have_ticket = 1;
	char cmd[8192], login[400];
	if (ticket_command(d, h, o, cmd, sizeof cmd) < 0) {
		explicit_bzero(cmd, sizeof cmd);
		return PvmSysErr;
	}
	snprintf(login, sizeof login, "%s%s%s", o->lo, *o->lo ? "@" : "",
		 *o->ip ? o->ip : o->name);
	/* PvmDataDefault: an XDR int is the wire's i32 */
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, 1);
	wire_wr_i32(&w, wire_host_tid(h->no));
	wire_wr_xdr_str(&w, o->so);
	wire_wr_xdr_str(&w, login);
	wire_wr_xdr_str(&w, cmd);
	explicit_bzero(cmd, sizeof cmd);
	d->hosts->hoster_last_wid = d->hosts->hoster_last_wid >= 0x7fffffffu
					    ? 1
					    : d->hosts->hoster_last_wid + 1;
	h->hoster_wid = d->hosts->hoster_last_wid;
	struct wire_hdr hh = {
		.flags = WIRE_F_FIRST | WIRE_F_LAST,
		.enc = PvmDataDefault,
		.dst = d->hosts->hoster_tid,
		.src = (int32_t)(WIRE_TID_DAEMON | (uint32_t)d->hosttid),
		.tag = SM_STHOST,
		.ctx = t->ctx,
		.wid = h->hoster_wid,
		.total = w.len,
	};
	struct fbuf *f = w.err ? NULL : fbuf_frame(&hh, w.buf, w.len);
	explicit_bzero(w.buf, w.len);
	wire_wr_free(&w);
	if (!f)
		return PvmNoMem;
	int ok = route_frame(d, &hh, f);
	fbuf_put(f);
	if (!ok)
		return PvmCantStart;
	plog(PL_INFO, "host %s (host %d): started by the hoster t%x", o->name,
	     h->no, d->hosts->hoster_tid);
	return 0;
}

/* ---- SM_STHOSTACK ---- */

static int code_of(const char *name)
{
	static const struct {
		const char *name;
		int code;
	} codes[] = {
		{"PvmCantStart", PvmCantStart},
		{"PvmDSysErr", PvmDSysErr},
		{"PvmDupHost", PvmDupHost},
		{"PvmBadVersion", PvmBadVersion},
		{"PvmNoHost", PvmNoHost},
		{"PvmSysErr", PvmSysErr},
		{"PvmOutOfRes", PvmOutOfRes},
		{"PvmNoMem", PvmNoMem},
	};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		if (!strcmp(name, codes[i].name))
			return codes[i].code;
	return PvmCantStart;
}

static struct host *pending_host(const struct pvmd *d, int tid, uint32_t wid)
{
	int no = host_no_of_tid(tid);
	struct host *h = tid == wire_host_tid(no) ? host_get(d, no) : NULL;
	if (!h || h->state != HOST_STARTING || !wid || h->hoster_wid != wid)
		return NULL;
	return h;
}

void host_daemon_msg(struct pvmd *d, int tid, const struct wire_hdr *h,
		     const uint8_t *payload)
{
	if (h->tag != SM_STHOSTACK || !d->hosts->hoster_tid ||
	    tid != d->hosts->hoster_tid) {
		plog(PL_ERR, "t%x: message tag %d to the pvmd ignored", tid,
		     h->tag);
		return;
	}
	if (h->enc != PvmDataDefault) {
		plog(PL_ERR, "t%x: SM_STHOSTACK not in PvmDataDefault: ignored",
		     tid);
		return;
	}
	struct wire_rd r;
	wire_rd_init(&r, payload, h->len);
	while (r.left && !r.err) {
		char line[4096];
		int htid = wire_rd_i32(&r);
		if (r.err) {
			plog(PL_ERR, "t%x: malformed SM_STHOSTACK", tid);
			return;
		}
		if (wire_rd_xdr_str(&r, line, sizeof line) < 0) {
			/* the start it names fails */
			plog(PL_ERR, "t%x: malformed SM_STHOSTACK", tid);
			struct host *bad = pending_host(d, htid, h->wid);
			if (bad)
				hoster_fail(d, bad, PvmCantStart,
					    "malformed answer from the hoster");
			return;
		}
		struct host *o = pending_host(d, htid, h->wid);
		if (!o) {
			plog(PL_ERR,
			     "t%x: SM_STHOSTACK for t%x (wid %u): no such start",
			     tid, htid, h->wid);
			continue;
		}
		o->hoster_wid = 0;
		plog(PL_DEBUG, "hoster: host %s answered '%s'", o->name, line);
		if (!strncmp(line, "ok ", 3) || !strncmp(line, "error ", 6)) {
			hoster_answer(d, o, line);
		} else {
			char why[200];
			snprintf(why, sizeof why, "the hoster says %.150s",
				 line);
			hoster_fail(d, o, code_of(line), why);
		}
	}
}

void hoster_task_exit(struct pvmd *d, int tid)
{
	if (!d->hosts->hoster_tid || tid != d->hosts->hoster_tid)
		return;
	d->hosts->hoster_tid = 0;
	plog(PL_INFO,
	     "t%x is no longer the hoster: the pvmd starts hosts itself", tid);
	for (int i = 2; i <= d->hosts->top; i++) {
		struct host *h = d->hosts->hosts[i];
		if (h && h->state == HOST_STARTING && h->hoster_wid)
			hoster_fail(d, h, PvmCantStart, "the hoster is gone");
	}
}
