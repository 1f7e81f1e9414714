/*
 * password.h - so=pw: the master asks the user for a host's password on
 * its terminal and gives it to ssh through an askpass program (docs/hosts.md,
 * "so=pw").
 *
 * The password is read with echo off, kept in memory only until it is
 * written to a file of mode 0600 in the VM's private directory (0700,
 * proto/vmdir.h), and that file is removed as soon as ssh has logged in
 * (the new pvmd's answer line) or the start has ended.  ssh reads it by
 * running this pvmd binary as its SSH_ASKPASS program: pvmd started with
 * PVMD_ASKPASS_FILE in its environment prints that file and exits
 * (pw_askpass_main).  The password is never on a command line, in the
 * environment or in the log.
 */
#ifndef PVM_PASSWORD_H
#define PVM_PASSWORD_H

#include <stddef.h>

struct pvmd;

/* The environment variable that puts pvmd in askpass mode. */
#define PW_ASKPASS_ENV "PVMD_ASKPASS_FILE"
/* The password files' names in the VM directory: askpass.<host number>. */
#define PW_FILE_PREFIX "askpass."
#define PW_MAX	       256

/* Called with the password typed (NUL-terminated; the callee must not
 * keep it: the buffer is wiped when it returns), or with pw NULL and the
 * reason in why. */
typedef void (*pw_done_cb)(struct pvmd *d, void *arg, const char *pw,
			   const char *why);

/* Prints "Password (<host>:<login>): " on the controlling terminal
 * (/dev/tty) and reads a line there with echo off; without a terminal, on
 * stdout and stdin (no echo handling unless stdin is a terminal).  One at
 * a time.  Returns 0 (done() is called later, from the event loop), or -1
 * with the reason in why. */
int pw_prompt(struct pvmd *d, const char *host, const char *login,
	      pw_done_cb done, void *arg, char *why, size_t whylen);

/* Stops a pending pw_prompt (done is not called) and restores the
 * terminal's echo.  Harmless if none is pending. */
void pw_cancel(struct pvmd *d);

/* Writes pw to a new 0600 file askpass.<hostno> in the VM directory d->dir;
 * its path goes to path.  Returns 0 or -1 (errno set). */
int pw_file_write(const struct pvmd *d, int hostno, const char *pw, char *path,
		  size_t n);

/* Overwrites and removes the file, empties path.  Harmless if path is "". */
void pw_file_remove(char *path);

/* pw_askpass_main, the askpass mode: host.h (main.c calls it). */

/* Appends to ssh's argv (room for 6) the options of a password login:
 * only password methods (a key must not log in instead), one prompt, no
 * BatchMode.  Returns the new argc. */
int pw_ssh_args(char **argv, int argc);

/* In the child before exec of ssh: SSH_ASKPASS (this pvmd binary),
 * SSH_ASKPASS_REQUIRE=force, PVMD_ASKPASS_FILE=path. */
void pw_ssh_env(const char *path);

#endif /* PVM_PASSWORD_H */
