/*
 * host.h - the other hosts of the virtual machine (docs/hosts.md): what
 * the pvmd's core sees of the host layer.
 *
 * The host layer, all in pvmd/host/: host.c keeps the host table and
 * what links carry, link.c the TCP links between pvmds (accept, connect,
 * the handshake of proto/handshake.h, heartbeats); hoster.c starts pvmds
 * on other hosts (TM_ADDHOST, TM_DELHOST, the hostfile), hoster_task.c
 * through a registered hoster task; slave.c is the startup of a pvmd
 * started that way; fwd.c sends task requests to the pvmd that handles
 * them and routes the replies back.  Its own state (struct hostlayer,
 * d->hosts) and the functions its files share are in hostlayer.h, which
 * only pvmd/host/ includes.
 */
#ifndef PVMD_HOST_H
#define PVMD_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "proto/auth.h"
#include "pvmd/ctl.h"
#include "pvmd/pvmd.h"

#define HOST_MAX 4095 /* host numbers 1..HOST_MAX (12 bits) */

struct conn;
struct pend;

enum host_state {
	HOST_FREE = 0,
	HOST_STARTING, /* master: its pvmd is being started */
	HOST_UP,       /* in the table */
};

/* One host of the table.  The core reads it; the host layer writes it. */
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

/* ---- life: main.c calls these in this order ---- */

/* First thing in main: if PVMD_ASKPASS_FILE is set, this pvmd binary was
 * run by ssh as the askpass program of a so=pw start (password.h).  Never
 * returns then (exit 0 after printing the password, 1 if the file is not
 * one of ours). */
void pw_askpass_main(int argc, char **argv);

/* d->hosts, empty; before anything else of the layer.  0, or -1 when out
 * of memory. */
int host_layer_new(struct pvmd *d);
/* `pvmd -s`: reads the startup lines a master sends on stdin, sets the
 * environment and the pvmd's identity; exits with a line on stdout when
 * they are bad.  host_read_startup_args: `pvmd -s -S line...`, the same
 * lines as arguments (a start through a registered hoster: a ticket
 * instead of the secret), the ticket's argument wiped at once. */
void host_read_startup(struct pvmd *d);
void host_read_startup_args(struct pvmd *d, int argc, char **argv);
/* Opens the TCP listener, reads PVM_HOST_TIMEOUT, and on the master
 * creates the secret (written to the VM directory) and enters this host
 * as host 1.  Returns 0 or -1 with a message in err. */
int host_init(struct pvmd *d, int master, char *err, size_t errlen);
/* The pvmd is serving: a slave tells its master ("ok ..." on stdout); the
 * master starts the hosts of `hostfile` (or none: NULL).  Returns 1 when
 * some are being started (pvmd_started(), pvmd.h, is called when the
 * last is in or has failed), 0 when none, -1 with a message in err when
 * the file cannot be read or has an error.  `foreground`: pvmd -f, so=ms
 * manual starts hold their dialogue on stdin and stdout. */
int host_started(struct pvmd *d, int foreground, const char *hostfile,
		 char *err, size_t errlen);
/* The startup hostfile's starts still pending fail as "cancelled" (the
 * process that started us was interrupted).  Returns how many. */
int host_cancel_hostfile(struct pvmd *d);
/* Stops starts, closes the links and frees d->hosts. */
void host_fini(struct pvmd *d);

/* ---- the table ---- */

struct host *host_get(const struct pvmd *d, int hostno);
/* The host a tid belongs to (NULL: not in the table). */
struct host *host_of_tid(const struct pvmd *d, int tid);
int host_no_of_tid(int tid);
/* By name (as added) or by the string form of its tid. */
struct host *host_by_name(const struct pvmd *d, const char *name);
int host_is_local_tid(const struct pvmd *d, int tid);
/* Whether the host of `tid` (whatever its task part) is in the machine:
 * this one, or one whose state is HOST_UP. */
int host_tid_present(const struct pvmd *d, int tid);
/* Number of hosts up (1 on a one-host machine). */
int host_count(const struct pvmd *d);
/* The master: how many other hosts' links are still open (a halting
 * master waits for them to close: those pvmds have stopped).  A slave:
 * 0. */
int host_links_open(const struct pvmd *d);
/* Bytes queued and not yet written on the link to the host of `tid`
 * (0 with no link). */
size_t host_link_queued(const struct pvmd *d, int tid);
/* The master, halting: every other host's pvmd is told to halt too.  A
 * slave: nothing. */
void host_halt_links(struct pvmd *d);
/* Whether this pvmd listens for other hosts (docs/security.md): a slave
 * always, the master once it has added a host (or with PVM_ADDR). */
int link_listening(const struct pvmd *d);

/* ---- what the core hands over ---- */

/* Queues a frame for host h (on its link, or until one is up; opens one
 * if needed).  Returns 1 if queued, 0 if dropped. */
int host_send(struct pvmd *d, struct host *h, struct fbuf *f);
/* Sends a control frame built from `hh` and payload to host `hostno`. */
/* A DM request with no reply to host `hostno` (dropped if it is gone). */
void host_send_dm(struct pvmd *d, int hostno, int code,
		  const struct wire_wr *payload);
int host_send_ctrl(struct pvmd *d, int hostno, const struct wire_hdr *hh,
		   const struct wire_wr *payload);
/* A frame on a link (outgoing, once the connect finished) or on an
 * accepted TCP connection (conn.c calls it).  0, or -1 with *why set. */
int host_link_frame(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		    struct fbuf *f, const char **why);
/* The connection `c` of a link closed. */
void host_link_closed(struct pvmd *d, struct conn *c, const char *why);
/* Local task `tid` is gone: the other hosts are told (their notifies,
 * mailbox, groups); a registered hoster's starts fail. */
void host_task_exit(struct pvmd *d, int tid);
/* A data message (one frame) from task `tid` to this pvmd's own address
 * (route_frame): SM_STHOSTACK from the registered hoster; anything else
 * is dropped. */
void host_daemon_msg(struct pvmd *d, int tid, const struct wire_hdr *h,
		     const uint8_t *payload);

/* ---- control requests ---- */

/* The host layer's rows of the control table (TM_CONFIG, TM_ADDHOST,
 * TM_DELHOST, TM_ADDCANCEL, TM_HOSTSYNC, TM_REGHOSTER), indexed by code. */
extern const struct ctl_row host_ctl_rows[];
/* Called by ctl_dispatch for a request of a local task, with its row's
 * `where`: if another pvmd handles it, sends it there (or splits it over
 * several) and returns 1; else 0. */
int fwd_request(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		const uint8_t *payload, enum ctl_where where);
/* A PvmTaskExit notify names a task of another host: asks that host
 * whether it still exists, and delivers the notify if not. */
void fwd_check_task(struct pvmd *d, int tid);

#endif /* PVMD_HOST_H */
