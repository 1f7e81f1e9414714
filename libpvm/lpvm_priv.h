/*
 * lpvm_priv.h - the private interface libpvm3 offers its companions
 * (libgpvm3, the pvmgroups command).  Not installed: only programs built
 * in this tree use it.  libpvm3 exports these lpvm_priv_* names and no
 * other internal one.
 */
#ifndef LPVM_PRIV_H
#define LPVM_PRIV_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"

/*
 * One control request to our pvmd, as libpvm3's own calls make them
 * (lp_api_call): enrolls if needed, sends control code `code` (a WIRE_TM_*
 * of proto/wire.h) with the payload `req` (NULL: none), waits for the
 * reply and returns its status word (>= 0, or the PVM error the pvmd
 * answered), with *rd reading the rest of the reply from *mem (malloc'd:
 * the caller frees it, also after an error status).  A failure of the
 * call itself (PvmSysErr: no pvmd, PvmNoMem, PvmBadMsg) comes back with
 * *mem NULL.  Logs the call on stderr when PvmDebugMask is set.
 */
int lpvm_priv_ctl(int code, const struct wire_wr *req, struct wire_rd *rd,
		  uint8_t **mem);

/*
 * Records an error of API function `fn` as libpvm3's own calls do: sets
 * pvm_errno and prints it when PvmAutoErr is on.  Returns `code`; codes
 * >= 0 pass through untouched.
 */
int lpvm_priv_err(const char *fn, int code);

/* Writes `text` to stderr as libpvm3 writes its own messages: in one
 * write, never raising SIGPIPE (a spawned task's stderr is a pipe to a
 * pvmd that may be gone). */
void lpvm_priv_stderr(const char *text);

/*
 * Group lists may be cached: the pvmd sends an unasked TM_GS_EVENT to
 * every task that fetched a group's list (TM_GS_INFO) when that group
 * changes next, and forgets the task until it fetches again.  This
 * returns the number of such events received so far, after taking in
 * what has already arrived (without waiting).  A list fetched when the
 * count was c is current as long as the count is still c.
 */
unsigned lpvm_priv_gs_epoch(void);

/*
 * Moves this task's traffic on without waiting, when output is queued:
 * writes what the sockets take and reads what has arrived.  Returns 1
 * while output is still queued, else 0 (at once, without a system call,
 * when nothing was queued).  A task that blocks outside the
 * library's own waits (the group barrier's futex) calls this so that
 * messages it has sent reach their destination meanwhile.
 */
int lpvm_priv_progress(void);

/*
 * Receive statistics of the socket routes (direct and pvmd; docs/stats.md):
 * body bytes of ordinary messages received so far, and the bytes written
 * into memory on their way to where the program reads them (the message
 * buffer of pvm_recv, the buffer of pvm_precv).  copied == bytes: one copy
 * per received byte.  The tests read it; it costs two additions a read.
 */
void lpvm_priv_rx_stats(uint64_t *bytes, uint64_t *copied);

/* Size of one item of a datatype of pvm_reduce, pvm_psend... (PVM_BYTE,
 * PVM_INT...; PVM_STR: 1), 0 for none. */
size_t lpvm_priv_dtype_size(int datatype);
/* pvm_pk<type> (unpack 0) or pvm_upk<type> (1) by datatype, PVM_STR as
 * bytes; PvmBadParam, not reported, for a datatype that is none. */
int lpvm_priv_pack(int datatype, void *p, int nitem, int stride, int unpack);
/* The reference's text of an error code ("Unknown Error" for others). */
const char *lpvm_priv_errstr(int code);

/*
 * How the process of task `tid` ended (TM_TASKEND, answered by the pvmd
 * that started it): returns 0 with *state LPVM_END_RUNNING (not reaped
 * yet), LPVM_END_EXITED (code the exit status) or LPVM_END_SIGNALED
 * (code the signal, core 1 if it dumped core), and the program's name
 * (also with PvmNoTask when the pvmd knows it); PvmNoTask when that
 * pvmd never started it or has forgotten it, PvmNotImpl from a pvmd
 * without the request, PvmSysErr without a pvmd.  Prints nothing.
 */
enum {
	LPVM_END_RUNNING = WIRE_END_RUNNING,
	LPVM_END_EXITED = WIRE_END_EXITED,
	LPVM_END_SIGNALED = WIRE_END_SIGNALED
};
struct lpvm_taskend {
	int state, code, core;
	char aout[64]; /* the program's name as spawned ("" unknown) */
};
int lpvm_priv_taskend(int tid, struct lpvm_taskend *end);

/*
 * The directories the local pvmd's spawn searches for a program name
 * without '/' (TM_SPAWNPATH), joined with ':' into buf (cut to size).
 * Returns the number of directories, or a PVM error.  Prints nothing.
 */
int lpvm_priv_spawnpath(char *buf, size_t size);

/*
 * Why host i of the last pvm_addhosts was not added, in the master
 * pvmd's words (the remote shell's own message where it printed one):
 * NULL when it was added, when there is nothing more to say than its
 * error code, or when the pvmd gives no reasons.  Valid until the next
 * pvm_addhosts.
 */
const char *lpvm_priv_addhost_why(int i);

/* Why the last pvm_start_pvmd failed beyond its error code ("cannot run
 * the pvmd PATH: No such file or directory ..."), or NULL. */
const char *lpvm_priv_start_why(void);

/*
 * pvm_addhosts for a caller that shows the wait and may end it (the
 * console's add).  While the master's answer is awaited, tick(arg, ms)
 * runs every period_ms (<= 0: 1000) with the time waited so far; it must
 * not call the library.  When it returns nonzero, or *stop is set (by a
 * signal handler: the signal also ends the current wait at once), the
 * library asks the master to cancel (TM_ADDCANCEL) and waits on, without
 * ticks: the hosts of this call still starting fail at once, with
 * PvmCantStart and the reason "cancelled" (lpvm_priv_addhost_why).
 * Returns as pvm_addhosts; `cancelled` says whether the cancel was asked.
 */
struct lpvm_addwatch {
	int period_ms;
	int (*tick)(void *arg, long waited_ms);
	void *arg;
	const volatile sig_atomic_t *stop; /* NULL: none */
	int cancelled;			   /* out */
};
int lpvm_priv_addhosts(char **hosts, int nhost, int *infos,
		       struct lpvm_addwatch *w);

#endif /* LPVM_PRIV_H */
