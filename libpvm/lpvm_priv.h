/*
 * lpvm_priv.h - the private interface libpvm3 offers its companions
 * (libgpvm3, the pvmgroups command).  Not installed: only programs built
 * in this tree use it.  libpvm3 exports these lpvm_priv_* names and no
 * other internal one.
 */
#ifndef LPVM_PRIV_H
#define LPVM_PRIV_H

#include <stddef.h>
#include <stdint.h>

/*
 * One control request to our pvmd: enrolls if needed, sends control code
 * `code` (a WIRE_TM_* of proto/wire.h) with the raw payload `req` of
 * `reqlen` bytes (req may be NULL when reqlen is 0), and waits for the
 * reply, handling other traffic meanwhile.  On success returns 0 and
 * hands over the whole reply payload (status word first) in *reply /
 * *replylen, malloc'd, for the caller to free.  Returns a negative PVM
 * error code (PvmSysErr: no pvmd, PvmNoMem...) otherwise, without
 * reporting it.  Logs the call on stderr when PvmDebugMask is set.
 */
int lpvm_priv_ctl(int code, const void *req, size_t reqlen, uint8_t **reply,
		  size_t *replylen);

/*
 * Records an error of API function `fn` as libpvm3's own calls do: sets
 * pvm_errno and prints it when PvmAutoErr is on.  Returns `code`; codes
 * >= 0 pass through untouched.
 */
int lpvm_priv_err(const char *fn, int code);

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

#endif /* LPVM_PRIV_H */
