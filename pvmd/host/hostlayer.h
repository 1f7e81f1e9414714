/*
 * hostlayer.h - inside the host layer (pvmd/host/ only; the core sees
 * host.h): its state, hung off struct pvmd as d->hosts, and what its
 * files call of each other.
 */
#ifndef PVMD_HOST_HOSTLAYER_H
#define PVMD_HOST_HOSTLAYER_H

#include <stdint.h>

#include "common/idhash.h"
#include "proto/auth.h"
#include "proto/dsig.h"
#include "pvmd/host/host.h"
#include "pvmd/host/hostfile.h"
#include "pvmd/loop.h"
#include "pvmd/pvmd.h"

#define HOST_PING_MS	500
#define HOST_TIMEOUT_MS 4000 /* default; PVM_HOST_TIMEOUT */

struct hostopt;
struct start;
struct pend;

/* The host layer's state: d->hosts (host_layer_new). */
struct hostlayer {
	struct host *hosts[HOST_MAX + 1]; /* by number; NULL: unused */
	/* the highest number hosts[] has held: walks of the table stop
	 * there, not at HOST_MAX (host_slot_set) */
	int top;
	int last_no; /* the number given last by hoster.c (next_no) */
	int nup;     /* hosts in HOST_UP, this one included */
	int master;  /* this pvmd is the master */
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
	/* a slave started over ssh: it stops when no master's table came
	 * by then (a start the master gave up: timed out, cancelled) */
	unsigned master_wait_ms;
	uint64_t master_deadline;
	int tcp_fd;	       /* listening TCP socket */
	struct loop_io tcp_io; /* its watcher (link.c) */
	int tcp_paused; /* out of descriptors: accepting again next tick */
	int port;
	unsigned timeout_ms; /* a silent link is dead after this */
	struct loop_timer ping;
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
	/* fwd.c: tasks' requests forwarded unchanged, until their reply:
	 * tid -> its list (struct fwait), at most FWAIT_MAX long */
	struct idhash fwaits;
	/* slave.c: the master's address, as ssh saw it */
	char client_ip[64];
};

/* ---- host.c ---- */

/* A new entry for host number `no` (state HOST_FREE), or NULL. */
struct host *host_new(struct pvmd *d, int no);
/* Puts h in hosts[no] (1..HOST_MAX), raising top. */
void host_slot_set(struct pvmd *d, int no, struct host *h);
/* Drops the frames waiting for a link to h. */
void host_drop_queue(struct host *h);

/* Writes the secret to the VM directory (for our tasks' direct routes,
 * docs/protocol.md).  0, or -1 with errno set. */
int host_save_secret(const struct pvmd *d);
/* The master's table changed: sends DM_HOSTTAB to every other host and
 * applies the change here. */
void host_table_changed(struct pvmd *d);
/* The master: one add request (or the startup hostfile) is done and
 * brought in these hosts: one PvmHostAdd notify on every host, listing
 * them (DM_HOSTADD), as the reference's one table update per request. */
void host_added(struct pvmd *d, const int *tids, int n);

/* ---- link.c ---- */

/* Starts the heartbeats; 0, or -1 with a message in err.  link_fini
 * closes the listener. */
int link_init(struct pvmd *d, char *err, size_t errlen);
/* Opens the TCP listener (tcp_fd, port) on d->ip, the address of our
 * table entry, and writes it to the VM directory for our tasks
 * (VMDIR_NETADDR): a slave at start, the master when the first host it
 * adds answers (or at start with PVM_ADDR).  0 (also when open already),
 * or -1 (logged). */
int link_listen(struct pvmd *d);
/* Closes it (the links it brought stay). */
void link_unlisten(struct pvmd *d);
void link_fini(struct pvmd *d);
/* The frames of a link not authenticated yet (DM_HELLO, DM_AUTH).
 * Returns 0, or -1 with *why set (the caller closes the link). */
/* A connection accepted on the TCP port from IPv4 address ip (network
 * order): a link waiting for the peer's DM_HELLO, or NULL (fd closed). */
struct conn *link_accepted(struct pvmd *d, int fd, uint32_t ip);
int link_handshake(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		   const uint8_t *payload, const char **why);

/* The master connects to a pvmd it started (hoster.c): when the link is
 * up, hoster_link_up(h) is called; on failure hoster_link_failed(h). */
int host_connect(struct pvmd *d, struct host *h);

/* ---- host.c, again ---- */

/* Host h is gone (declared dead, deleted or halted): forgets it, drops
 * what was queued for it, delivers its tasks' exits and PvmHostDelete. */
void host_lost(struct pvmd *d, struct host *h, const char *why);
/* halt from anywhere: a slave asks the master; the master tells all. */
void host_halt_all(struct pvmd *d);
/* The master: this host's "ip:port" in its table entry, from d->ip. */
void host_set_addr(struct pvmd *d);

/* ---- hoster.c (master) ---- */

int ctl_addhost(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r);
int ctl_delhost(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r);
/* TM_ADDCANCEL: the asker's own add requests end now (docs/hosts.md). */
int ctl_addcancel(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r);
/* Adds the hosts of the hostfile given at startup (not '&' ones); what
 * host_started returns. */
int hoster_start_hostfile(struct pvmd *d, const char *path, char *err,
			  size_t errlen);
void hoster_link_up(struct pvmd *d, struct host *h);
void hoster_link_failed(struct pvmd *d, struct host *h, const char *why);
/* Options of a host from the hostfile (NULL: none). */
const struct hostopt *hoster_opts(const struct pvmd *d, const char *name);
void hoster_fini(struct pvmd *d);
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
void hoster_startup_values(
	const struct pvmd *d, const struct host *h, const struct hostopt *o,
	void (*put)(void *ctx, const char *key, const char *val), void *ctx);
/* The startup lines for h's pvmd on its stdin, the secret and "end"
 * included, into buf (cut if they do not fit).  masterwait_ms: how long
 * it waits for us once it answers (0: for ever, a manual start).
 * Returns their length. */
int hoster_startup_lines(const struct pvmd *d, const struct host *h,
			 const struct hostopt *o, unsigned masterwait_ms,
			 char *buf, size_t size);
/* PVM_HOST_START_TIMEOUT (ms, default 30000): how long a start may take
 * (and a hoster-started pvmd's ticket lives). */
unsigned hoster_start_timeout(void);

/* ---- hoster_task.c (master): a task registered with pvm_reg_hoster ---- */

int ctl_reghoster(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r);
/* The registered hoster's tid, or 0. */
int hoster_task_tid(const struct pvmd *d);
/* Sends the hoster SM_STHOST for host h (a ticket is made for it).
 * 0 or a PVM error code. */
int hoster_task_start(struct pvmd *d, struct host *h, const struct hostopt *o);
/* Local task `tid` is gone: if it was the hoster, its starts fail. */
void hoster_task_exit(struct pvmd *d, int tid);

/* ---- slave.c ---- */

/* Writes "ok <ip>:<port> <arch> <dsig>" (the pvmd is listening). */
void slave_report_ok(struct pvmd *d);

/* ---- fwd.c ---- */

/* A reply that came over a link (CTRL|REPLY). */
void fwd_reply(struct pvmd *d, const struct wire_hdr *h, struct fbuf *f);
/* Host `hostno` is gone: pending fan-outs waiting on it complete with
 * errors, and tasks' requests forwarded to it are handled here. */
void fwd_host_lost(struct pvmd *d, int hostno);
/* Frees what fwd.c holds (the pvmd halts). */
void fwd_fini(struct pvmd *d);
int ctl_hostsync(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r);

#endif /* PVMD_HOST_HOSTLAYER_H */
