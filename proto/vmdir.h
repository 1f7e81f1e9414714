/*
 * vmdir.h - where a virtual machine keeps its contact address and state.
 *
 * One private directory per user and PVM_VMID:
 *     ${PVM_TMP:-/tmp}/pvm.<uid>[.<vmid>]      (mode 0700, owned by the user)
 * holding pvmd.sock (the pvmd's Unix socket), pvmd.lock (flock'ed by the live
 * pvmd for its whole life, so a stale directory left by a crashed pvmd is
 * recognised by the lock being free), pvmd.pid, pvmd.log, and t<tid>.sock,
 * the direct-route socket of each task that accepts direct routes,
 * groups.shm, the groups' barrier slots (gshm.h), and secret, the virtual
 * machine's shared secret (mode 0600, 64 hex digits; auth.h) that pvmds and
 * tasks of other hosts must prove they know.
 */
#ifndef PVM_VMDIR_H
#define PVM_VMDIR_H

#include <stddef.h>

#define VMDIR_SOCK    "pvmd.sock"
#define VMDIR_LOCK    "pvmd.lock"
#define VMDIR_PID     "pvmd.pid"
#define VMDIR_LOG     "pvmd.log"
#define VMDIR_SECRET  "secret"
/* the address the pvmd listens on for other hosts (a line), present
 * while it does: tasks' TCP direct-route listeners take it too */
#define VMDIR_NETADDR "netaddr"

/* Writes the directory's path.  Returns 0, or -1 if PVM_VMID holds
 * characters other than letters, digits, '.', '_' and '-' or the path does
 * not fit.
 *
 * Another user can create the primary name in a shared PVM_TMP (/tmp)
 * first.  When it exists and is not ours, every process of ours uses
 *     <home>/.pvm/<hostname>/pvm.<uid>[.<vmid>]
 * instead, <home> from the password database (not HOME: the same under
 * cron, su or ssh), <hostname> because a home may be shared by hosts.
 * Also when the primary name is free again but our pvmd already runs in
 * the fallback (its socket is there), so that nobody starts a second
 * one. */
int vmdir_path(char *buf, size_t n);

/* The primary path, ${PVM_TMP:-/tmp}/pvm.<uid>[.<vmid>]: 0 or -1. */
int vmdir_primary(char *buf, size_t n);

/* Path of a file in the directory. Returns 0 or -1 as vmdir_path. */
int vmdir_file(char *buf, size_t n, const char *name);
/* The same in a directory already known (the pvmd's: vmdir_path looks at
 * the file system each time). */
int vmdir_in(char *buf, size_t n, const char *dir, const char *name);

/* Path of the direct-route socket of task `tid`. */
int vmdir_task_sock(char *buf, size_t n, int tid);
/* The same in directory `dir` (NULL: vmdir_path's). */
int vmdir_task_sock_in(char *buf, size_t n, const char *dir, int tid);

/* Creates directory `dir` (what vmdir_path gave, once: the pvmd keeps
 * it) if needed, without races: mkdir with mode 0700 (and the parents of
 * the fallback in the home, ours alone), and when it exists, accepts it
 * only if it is a real directory (not a symlink) owned by this user with
 * no group/other permissions.  Returns 0, or -1 with a message in err. */
int vmdir_create(const char *dir, char *err, size_t errlen);

/* Checks that an existing directory is ours and private (for clients
 * before they trust the socket in it).  Returns 0 or -1. */
int vmdir_check(void);

/* Writes `text` to the file `path` of the VM directory, mode 0600,
 * through a temporary name and a rename: a reader finds all of it or
 * the file before.  0, or -1 with errno set. */
int vmdir_write_file(const char *path, const char *text);

/* Removes every entry of directory `dir` (its files: a VM directory
 * holds no subdirectory), then `dir` itself.  The rmdir's result: 0, or
 * -1 with errno set. */
int vmdir_remove(const char *dir);

/* Whether a pvmd runs in directory `dir`: it holds its lock file for
 * its whole life (released when it exits, even while it waits, a zombie,
 * for its parent; a pid file would still name it).  Only looks. */
int vmdir_pvmd_alive(const char *dir);

/* The virtual machines of this user with a live pvmd, in
 * ${PVM_TMP:-/tmp} and in the fallback of vmdir_path: their PVM_VMIDs
 * ("(no PVM_VMID)" for the default one), joined with ", " into buf (cut
 * to size).  Returns how many. */
int vmdir_list_running(char *buf, size_t n);

#endif /* PVM_VMDIR_H */
