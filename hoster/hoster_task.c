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

#include "conn.h"
#include "host.h"
#include "hostfile.h"
#include "log.h"
#include "pvm3.h"
#include "pvmproto.h"
#include "wire.h"

static int hoster_tid;          /* the registered hoster, or 0 */
static uint32_t last_wid;

int hoster_task_tid(void)
{
	return hoster_tid;
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
	else if (!hl.master)
		st = PvmHostrNMstr; /* as the reference: only on the master */
	else if (on && hoster_tid && hoster_tid != t->tid)
		st = PvmAlready;
	else if (on) {
		hoster_tid = t->tid;
		plog(PL_INFO, "t%x is the hoster: it starts the pvmds of hosts added",
		     t->tid);
	} else if (hoster_tid == t->tid) {
		hoster_task_exit(d, t->tid);
	}
	ctl_reply_status(d, c, h, st);
	return 0;
}

/* ---- SM_STHOST ---- */

/* XDR as pvm_pkint / pvm_pkstr pack them (PvmDataDefault): an int is 4
 * bytes big-endian; a string is its length with the NUL, then its bytes
 * and the NUL, padded with zeros to a multiple of 4. */
static void xdr_int(struct wire_wr *w, int v)
{
	wire_wr_i32(w, v);
}

static void xdr_str(struct wire_wr *w, const char *s)
{
	size_t n = strlen(s) + 1;
	wire_wr_i32(w, (int32_t)n);
	/* wire_wr_bytes would add its own length: write the bytes as i32
	 * words instead */
	for (size_t i = 0; i < n; i += 4) {
		uint8_t b[4] = {0};
		for (size_t k = 0; k < 4 && i + k < n; k++)
			b[k] = (uint8_t)(i + k < n - 1 ? s[i + k] : 0);
		wire_wr_i32(w, (int32_t)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
					 (uint32_t)b[2] << 8 | b[3]));
	}
}

/* Appends ` '<s>'` (single quotes, for the remote shell) to cmd. */
static int add_word(char *cmd, size_t size, const char *key, const char *val)
{
	size_t k = strlen(cmd);
	if (k + 4 >= size)
		return -1;
	cmd[k++] = ' ';
	cmd[k++] = '\'';
	for (const char *p = key; *p; p++) {
		if (k + 8 >= size)
			return -1;
		cmd[k++] = *p;
	}
	if (val) {
		cmd[k++] = ' ';
		for (const char *p = val; *p; p++) {
			if (k + 8 >= size)
				return -1;
			if (*p == '\'') {
				memcpy(cmd + k, "'\\''", 4);
				k += 4;
			} else {
				cmd[k++] = *p;
			}
		}
	}
	cmd[k++] = '\'';
	cmd[k] = 0;
	return 0;
}

/* "<dx>" -s -S 'version 1' 'vmid ..' ... 'ticket <hex>' 'end' */
static int ticket_command(const struct host *h, const struct hostopt *o,
			  char *cmd, size_t size)
{
	if (hoster_remote_command(o, cmd, size - 8) < 0)
		return -1;
	strcat(cmd, " -S");
	char v[32], hex[2 * AUTH_SECRET_LEN + 1];
	const char *vmid = *o->id ? o->id : getenv("PVM_VMID");
	int bad = 0;
	snprintf(v, sizeof v, "%d", WIRE_VERSION);
	bad |= add_word(cmd, size, "version", v);
	bad |= add_word(cmd, size, "vmid", vmid ? vmid : "");
	snprintf(v, sizeof v, "%d", h->no);
	bad |= add_word(cmd, size, "hostno", v);
	bad |= add_word(cmd, size, "name", o->name);
	snprintf(v, sizeof v, "%u", hl.timeout_ms);
	bad |= add_word(cmd, size, "timeout", v);
	snprintf(v, sizeof v, "%u", hoster_start_timeout());
	bad |= add_word(cmd, size, "ticketlife", v);
	if (*o->wd)
		bad |= add_word(cmd, size, "wd", o->wd);
	if (*o->ep)
		bad |= add_word(cmd, size, "ep", o->ep);
	if (*o->bx)
		bad |= add_word(cmd, size, "bx", o->bx);
	/* binds the ticket to our secret without showing it */
	uint8_t commit[AUTH_MAC_LEN];
	char chex[2 * AUTH_MAC_LEN + 1];
	auth_mac(hl.secret, "pvmd-secret-commit", h->ticket, h->ticket, commit);
	auth_hex(commit, AUTH_MAC_LEN, chex);
	bad |= add_word(cmd, size, "commit", chex);
	auth_hex(h->ticket, AUTH_SECRET_LEN, hex);
	bad |= add_word(cmd, size, "ticket", hex);
	explicit_bzero(hex, sizeof hex);
	bad |= add_word(cmd, size, "end", NULL);
	return bad ? -1 : 0;
}

int hoster_task_start(struct pvmd *d, struct host *h, const struct hostopt *o)
{
	struct task *t = task_find(d, hoster_tid);
	if (!t || !t->conn)
		return PvmCantStart;
	if (auth_random(h->ticket, AUTH_SECRET_LEN) < 0)
		return PvmSysErr;
	h->have_ticket = 1;
	char cmd[8192], login[400];
	if (ticket_command(h, o, cmd, sizeof cmd) < 0) {
		explicit_bzero(cmd, sizeof cmd);
		return PvmSysErr;
	}
	snprintf(login, sizeof login, "%s%s%s", o->lo, *o->lo ? "@" : "",
		 *o->ip ? o->ip : o->name);
	struct wire_wr w;
	wire_wr_init(&w);
	xdr_int(&w, 1);
	xdr_int(&w, wire_host_tid(h->no));
	xdr_str(&w, o->so);
	xdr_str(&w, login);
	xdr_str(&w, cmd);
	explicit_bzero(cmd, sizeof cmd);
	last_wid = last_wid >= 0x7fffffffu ? 1 : last_wid + 1;
	h->hoster_wid = last_wid;
	struct wire_hdr hh = {
		.flags = WIRE_F_FIRST | WIRE_F_LAST,
		.enc = PvmDataDefault,
		.dst = hoster_tid,
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
	     h->no, hoster_tid);
	return 0;
}

/* ---- SM_STHOSTACK ---- */

static int code_of(const char *name)
{
	static const struct {
		const char *name;
		int code;
	} codes[] = {
		{"PvmCantStart", PvmCantStart}, {"PvmDSysErr", PvmDSysErr},
		{"PvmDupHost", PvmDupHost},     {"PvmBadVersion", PvmBadVersion},
		{"PvmNoHost", PvmNoHost},       {"PvmSysErr", PvmSysErr},
		{"PvmOutOfRes", PvmOutOfRes},   {"PvmNoMem", PvmNoMem},
	};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		if (!strcmp(name, codes[i].name))
			return codes[i].code;
	return PvmCantStart;
}

/* One XDR string of at most `max` bytes (with the NUL) into out. */
static int rd_xdr_str(struct wire_rd *r, char *out, size_t max)
{
	int32_t n = wire_rd_i32(r);
	if (r->err || n < 1 || (size_t)n > max)
		return -1;
	size_t padded = ((size_t)n + 3) & ~(size_t)3;
	if (padded > r->left)
		return -1;
	memcpy(out, r->p, (size_t)n);
	r->p += padded;
	r->left -= padded;
	if (out[n - 1] != 0 || strlen(out) != (size_t)n - 1)
		return -1;
	return 0;
}

static struct host *pending_host(int tid, uint32_t wid)
{
	int no = host_no_of_tid(tid);
	struct host *h = tid == wire_host_tid(no) ? host_get(no) : NULL;
	if (!h || h->state != HOST_STARTING || !wid || h->hoster_wid != wid)
		return NULL;
	return h;
}

void hoster_task_msg(struct pvmd *d, int tid, const struct wire_hdr *h,
		     const uint8_t *payload)
{
	if (h->tag != SM_STHOSTACK || !hoster_tid || tid != hoster_tid) {
		plog(PL_ERR, "t%x: message tag %d to the pvmd ignored", tid, h->tag);
		return;
	}
	if (h->enc != PvmDataDefault) {
		plog(PL_ERR, "t%x: SM_STHOSTACK not in PvmDataDefault: ignored", tid);
		return;
	}
	struct wire_rd r;
	wire_rd_init(&r, payload, h->len);
	while (r.left && !r.err) {
		static char line[4096];
		int htid = wire_rd_i32(&r);
		if (r.err || rd_xdr_str(&r, line, sizeof line) < 0) {
			plog(PL_ERR, "t%x: malformed SM_STHOSTACK", tid);
			struct host *bad = r.err ? NULL : pending_host(htid, h->wid);
			if (bad)
				hoster_fail(d, bad, PvmCantStart,
					    "malformed answer from the hoster");
			return;
		}
		struct host *o = pending_host(htid, h->wid);
		if (!o) {
			plog(PL_ERR, "t%x: SM_STHOSTACK for t%x (wid %u): no such start",
			     tid, htid, h->wid);
			continue;
		}
		o->hoster_wid = 0;
		plog(PL_DEBUG, "hoster: host %s answered '%s'", o->name, line);
		if (!strncmp(line, "ok ", 3) || !strncmp(line, "error ", 6)) {
			hoster_answer(d, o, line);
		} else {
			char why[200];
			snprintf(why, sizeof why, "the hoster says %.150s", line);
			hoster_fail(d, o, code_of(line), why);
		}
	}
}

void hoster_task_exit(struct pvmd *d, int tid)
{
	if (!hoster_tid || tid != hoster_tid)
		return;
	hoster_tid = 0;
	plog(PL_INFO, "t%x is no longer the hoster: the pvmd starts hosts itself",
	     tid);
	for (int i = 2; i <= HOST_MAX; i++) {
		struct host *h = hl.hosts[i];
		if (h && h->state == HOST_STARTING && h->hoster_wid)
			hoster_fail(d, h, PvmCantStart, "the hoster is gone");
	}
}
