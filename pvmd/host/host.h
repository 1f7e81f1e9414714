/*
 * host.h - the other hosts of the virtual machine (docs/hosts.md).
 *
 * The host layer, all in pvmd/host/: host.c keeps the host table and
 * what links carry, link.c the TCP links between pvmds (accept, connect,
 * the handshake of proto/handshake.h, heartbeats); hoster.c starts pvmds
 * on other hosts (TM_ADDHOST, TM_DELHOST, the hostfile), hoster_task.c
 * through a registered hoster task; slave.c is the startup of a pvmd
 * started that way; fwd.c sends task requests to the pvmd that handles
 * them and routes the replies back.
 */
#ifndef PVMD_HOST_H
#define PVMD_HOST_H

#include <stdint.h>

#include "proto/auth.h"
#include "pvmd/host/hostfile.h"
#include "pvmd/pvmd.h"

#define HOST_MAX	4095 /* host numbers 1..HOST_MAX (12 bits) */
#define HOST_PING_MS	500
#define HOST_TIMEOUT_MS 4000 /* default; PVM_HOST_TIMEOUT */

struct conn;
struct hostopt;
struct start;
struct pend;

enum host_state {
	HOST_FREE = 0,
	HOST_STARTING, /* master: its pvmd is being started */
	HOST_UP,       /* in the table */
};

struct host {
	int no; /* host number: tid = no << 18 */
	enum host_state state;
	char name[256];
	char arch[32];
	int speed;
	int dsig;
	char addr[80];		 /* "ip:port" of its pvmd's TCP listener */
	struct conn *link;	 /* the link frames to it go on, or NULL */
	struct conn *connecting; /* a link we are opening, not yet up */
	struct fbuf **q;	 /* frames waiting for a link */
	size_t nq, capq;
	/* master, a start through a registered hoster: the one-time key of
	 * the first link's handshake, and the wid of the SM_STHOST sent */
	uint8_t ticket[AUTH_SECRET_LEN];
	int have_ticket;
	uint32_t hoster_wid;
};

/* Per-pvmd state of the host layer (one instance, in host.c). */
struct hostlayer {
	struct host *hosts[HOST_MAX + 1]; /* by number; NULL: unused */
	int nup;    /* hosts in HOST_UP, this one included */
	int master; /* this pvmd is the master */
	uint8_t secret[AUTH_SECRET_LEN];
	int have_secret;
	/* a slave started through a hoster: the ticket until the master's
	 * first link has brought the secret */
	uint8_t ticket[AUTH_SECRET_LEN];
	int have_ticket;
	/* HMAC(secret, "pvmd-secret-commit" | ticket | ticket): the secret
	 * the master brings must match it (a ticket thief's would not) */
	uint8_t commit[AUTH_MAC_LEN];
	int have_commit;
	unsigned ticket_life_ms; /* it stops when no master came by then */
	uint64_t ticket_deadline;
	int tcp_fd;	     /* listening TCP socket */
	struct ev_io tcp_io; /* its watcher (link.c) */
	int tcp_paused;	     /* out of descriptors: accepting again next tick */
	int port;
	unsigned timeout_ms; /* a silent link is dead after this */
	struct ev_timer ping;
	int spawn_rr; /* round-robin position of default spawns */

	/* hoster.c (master): starts in progress, the startup hostfile */
	struct start *starts;
	int foreground;		  /* pvmd -f: stdin and stdout are the user's */
	struct start *manual_now; /* the manual start holding the terminal */
	struct hostfile hf;	  /* the startup hostfile's entries */
	int have_hf;
	/* hoster_task.c (master): the registered hoster, or 0 */
	int hoster_tid;
	uint32_t hoster_last_wid;
	/* fwd.c: requests forwarded to other pvmds, waiting for replies, and
	 * the wid of the last one */
	struct pend *pends;
	uint32_t fwd_last_wid;
	/* slave.c: the master's address, as ssh saw it */
	char client_ip[64];
};

extern struct hostlayer hl;

/* ---- host.c ---- */

/* A new entry for host number `no` (state HOST_FREE), or NULL. */
struct host *host_new(int no);
/* Drops the frames waiting for a link to h. */
void host_drop_queue(struct host *h);

/* Opens the TCP listener, reads PVM_HOST_TIMEOUT, and on the master
 * creates the secret (written to the VM directory) and enters this host
 * as host 1.  Returns 0 or -1 with a message in err. */
int host_init(struct pvmd *d, int master, char *err, size_t errlen);
/* Writes hl.secret to the VM directory (for our tasks' direct routes,
 * docs/protocol.md).  0, or -1 with errno set. */
int host_save_secret(void);
void host_fini(struct pvmd *d);
struct host *host_get(int hostno);
/* The host a tid belongs to (NULL: not in the table). */
struct host *host_of_tid(int tid);
int host_no_of_tid(int tid);
/* By name (as added) or by the string form of its tid. */
struct host *host_by_name(const char *name);
int host_is_local_tid(const struct pvmd *d, int tid);
/* Whether the host of `tid` (whatever its task part) is in the machine:
 * this one, or one whose state is HOST_UP. */
int host_tid_present(const struct pvmd *d, int tid);
/* Queues a frame for host h (on its link, or until one is up; opens one
 * if needed).  Returns 1 if queued, 0 if dropped. */
int host_send(struct pvmd *d, struct host *h, struct fbuf *f);
/* Sends a control frame built from `hh` and payload to host `hostno`. */
int host_send_ctrl(struct pvmd *d, int hostno, const struct wire_hdr *hh,
		   const struct wire_wr *payload);
/* The master's table changed: sends DM_HOSTTAB to every other host and
 * applies the change here. */
void host_table_changed(struct pvmd *d);
/* The master: one add request (or the startup hostfile) is done and
 * brought in these hosts: one PvmHostAdd notify on every host, listing
 * them (DM_HOSTADD), as the reference's one table update per request. */
void host_added(struct pvmd *d, const int *tids, int n);
/* ---- link.c ---- */

/* Opens the TCP listener (hl.tcp_fd, hl.port) and starts the heartbeats;
 * 0, or -1 with a message in err.  link_fini closes the listener. */
int link_init(struct pvmd *d, char *err, size_t errlen);
void link_fini(struct pvmd *d);
/* The frames of a link not authenticated yet (DM_HELLO, DM_AUTH).
 * Returns 0, or -1 with *why set (the caller closes the link). */
int link_handshake(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		   const uint8_t *payload, const char **why);

/* ---- host.c, again ---- */

/* A link (outgoing, once the connect finished) or an accepted TCP
 * connection: the frame handler for it (conn.c calls it). */
int host_link_frame(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		    struct fbuf *f, const char **why);
/* The connection `c` of a link closed. */
void host_link_closed(struct pvmd *d, struct conn *c, const char *why);
/* The master connects to a pvmd it started (hoster.c): when the link is
 * up, hoster_link_up(h) is called; on failure hoster_link_failed(h). */
int host_connect(struct pvmd *d, struct host *h);
/* Host h is gone (declared dead, deleted or halted): forgets it, drops
 * what was queued for it, delivers its tasks' exits and PvmHostDelete. */
void host_lost(struct pvmd *d, struct host *h, const char *why);
/* Tells every other host that local task `tid` is gone. */
void host_task_exit(struct pvmd *d, int tid);
/* halt from anywhere: a slave asks the master; the master tells all. */
void host_halt_all(struct pvmd *d);
/* The master: this host's "ip:port" in its table entry, from d->ip. */
void host_set_addr(struct pvmd *d);
/* Number of hosts up (1 on a one-host machine). */
int host_count(void);

/* ---- hoster.c (master) ---- */

int ctl_addhost(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r);
int ctl_delhost(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r);
/* Adds the hosts of the hostfile given at startup (not '&' ones).
 * Returns 1 when some are being started: pvmd_started() (main.c) is
 * called when the last one is in or has failed; 0 when none; -1 with a
 * message in err when the file cannot be read or has an error. */
int hoster_start_hostfile(struct pvmd *d, const char *path, char *err,
			  size_t errlen);
void pvmd_started(void);
void hoster_link_up(struct pvmd *d, struct host *h);
void hoster_link_failed(struct pvmd *d, struct host *h, const char *why);
/* Options of a host from the hostfile (NULL: none). */
const struct hostopt *hoster_opts(const char *name);
void hoster_fini(struct pvmd *d);
/* pvmd -f: so=ms manual starts hold their dialogue on stdin/stdout. */
void hoster_set_foreground(int on);
/* The answer of a start made by a registered hoster (hoster_task.c):
 * the pvmd's line, handled as the one an ssh start reads; or a failure. */
void hoster_answer(struct pvmd *d, struct host *h, char *line);
void hoster_fail(struct pvmd *d, struct host *h, int code, const char *why);

/* ---- startup.c (master): what a new pvmd is told ---- */

/* The command that starts a pvmd on o's host: "<dx>" -s.  0 or -1. */
int hoster_remote_command(const struct hostopt *o, char *cmd, size_t n);
/* The startup values every new pvmd gets (docs/hosts.md, read by
 * slave.c), put(ctx, key, value) for each; the secret (or a ticket) and
 * "end" are the caller's to add. */
void hoster_startup_values(const struct host *h, const struct hostopt *o,
			   void (*put)(void *ctx, const char *key,
				       const char *val),
			   void *ctx);
/* The startup lines for h's pvmd on its stdin, the secret and "end"
 * included, into buf (cut if they do not fit).  Returns their length. */
int hoster_startup_lines(const struct host *h, const struct hostopt *o,
			 char *buf, size_t size);
/* PVM_HOST_START_TIMEOUT (ms, default 30000): how long a start may take
 * (and a hoster-started pvmd's ticket lives). */
unsigned hoster_start_timeout(void);

/* ---- hoster_task.c (master): a task registered with pvm_reg_hoster ---- */

int ctl_reghoster(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r);
/* The registered hoster's tid, or 0. */
int hoster_task_tid(void);
/* Sends the hoster SM_STHOST for host h (a ticket is made for it).
 * 0 or a PVM error code. */
int hoster_task_start(struct pvmd *d, struct host *h, const struct hostopt *o);
/* A data message (one frame) from task `tid` to this pvmd's daemon
 * address (route_frame): SM_STHOSTACK from the hoster, anything else is
 * dropped. */
void hoster_task_msg(struct pvmd *d, int tid, const struct wire_hdr *h,
		     const uint8_t *payload);
/* Local task `tid` is gone: if it was the hoster, its starts fail. */
void hoster_task_exit(struct pvmd *d, int tid);

/* ---- slave.c ---- */

/* `pvmd -s`: reads the startup lines from stdin, sets the environment
 * and the pvmd's identity; exits with a line on stdout when they are
 * bad. */
void slave_read_config(struct pvmd *d);
/* `pvmd -s -S line...`: the same lines from the arguments (a start
 * through a registered hoster: a ticket instead of the secret); the
 * ticket's argument is wiped at once. */
void slave_read_args(struct pvmd *d, int argc, char **argv);
/* Writes "ok <ip>:<port> <arch> <dsig>" (the pvmd is listening). */
void slave_report_ok(struct pvmd *d);

/* ---- fwd.c ---- */

/* Called by ctl_dispatch for a request of a local task: if another pvmd
 * handles it, sends it there (or fans it out) and returns 1; else 0. */
int fwd_request(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		const uint8_t *payload);
/* A reply that came over a link (CTRL|REPLY). */
void fwd_reply(struct pvmd *d, const struct wire_hdr *h, struct fbuf *f);
/* Host `hostno` is gone: pending fan-outs waiting on it complete with
 * errors. */
void fwd_host_lost(struct pvmd *d, int hostno);
/* Sends a control reply to task `tid` wherever it is: its connection
 * here, or over the link to its host (REPLY). */
void ctl_reply_tid(struct pvmd *d, int tid, const struct wire_hdr *req,
		   const struct wire_wr *payload);
/* ctl_reply_tid with the payload i32 status, i32 n, n x i32 v[i] (the
 * answer of spawn, addhost, delhost). */
void ctl_reply_list(struct pvmd *d, int tid, const struct wire_hdr *req,
		    int status, int n, const int *v);
/* The tid a request on `c` is from: the task of a task connection, the
 * header's src on a link. */
int ctl_src(const struct conn *c, const struct wire_hdr *h);
/* A PvmTaskExit notify names a task of another host: asks that host
 * whether it still exists, and delivers the notify if not. */
void fwd_check_task(struct pvmd *d, int tid);
int ctl_hostsync(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r);

#endif /* PVMD_HOST_H */
