/*
 * hostfile.h - the hostfile of man 1 pvmd3: which hosts make up the virtual
 * machine and how each is started.  Used for the pvmd's initial hostfile
 * and for the lines of pvm_addhosts / the console's `add`, which may carry
 * options too.
 *
 * Syntax, one host per line, fields separated by blanks or tabs:
 *
 *     # a comment (a line whose first non-blank is '#'); blank lines too
 *     name [option=value ...]        a host, started with the machine
 *     & name [option=value ...]      a host whose options are kept, but
 *                                    which is added only when requested
 *                                    (pvm_addhosts, console add); the '&'
 *                                    may touch the name ("&name")
 *     * option=value ...             new defaults for the lines that follow
 *                                    (until the next '*' line) and, the last
 *                                    ones, for hosts added later that are
 *                                    not in the file
 *
 * Options (names are lower case; "opt=" with an empty value puts the
 * default back):
 *     lo=NAME   login name on that host (default: the same user)
 *     so=pw     ask for the password on the foreground master's tty,
 *               ssh logs in with it (password.h)
 *     so=ms     manual start: the user starts the pvmd there by hand
 *     dx=FILE   path of the pvmd there: a file name, an absolute path or a
 *               path relative to the home directory there
 *     ep=PATH   where to look for programs to spawn, ':'-separated
 *     wd=DIR    working directory of the tasks spawned there (default $HOME)
 *     sp=N      relative speed, 1..1000000 (default 1000)
 *     bx=FILE   debugger for PvmTaskDebug
 *     ip=NAME   name or address to reach the host by, instead of its name
 *     id=VMID   the virtual machine id (PVM_VMID) to use there
 * A '$' in a value names an environment variable (e.g. ep=bin/$PVM_ARCH);
 * it is kept as written here and expanded by the pvmd that uses it.
 * Values with blanks cannot be written (as in the reference).
 *
 * Stricter than the reference (which logs a few of these and goes on, and
 * takes the others silently): an unknown option or one without '=', a bad
 * sp= or so= value, a value too long for its field, a name or lo=/ip=
 * value beginning with '-' (it would be taken for an ssh option), the
 * reference's '$name' (overloading a host: not supported) and a host listed
 * twice in a file are errors.
 */
#ifndef PVMD_HOSTFILE_H
#define PVMD_HOSTFILE_H

#include <stddef.h>

struct hostopt {
	char name[256]; /* host name as written (no '&') */
	char lo[64];	/* lo= login name; "" = same user */
	char so[16];  /* so= : "" , "ms" (manual start) or "pw" (ask a password)
		       */
	char dx[512]; /* dx= pvmd path; "" = default */
	char ep[1024]; /* ep= spawn path (colon-separated); "" = default */
	char wd[512]; /* wd= working directory of spawned tasks; "" = default */
	char bx[512]; /* bx= debugger; "" = default */
	char ip[256]; /* ip= name or address to reach the host by; "" = name */
	char id[256]; /* id= virtual machine id there; "" = ours */
	int sp;	      /* sp= relative speed, default 1000, 1..1000000 */
	int deferred; /* line began with '&': added only on request */
};

/* Every option at its default: empty strings, sp 1000, not deferred. */
void hostopt_default(struct hostopt *o);

/* Parses one line.  `dflt` holds the options set by earlier '*' lines
 * (start from hostopt_default()).  Returns 1: a host in *out (options =
 * dflt, overridden by the line's own); 0: blank, comment ('#'), or a '*'
 * line (then *dflt is updated); -1: error, a message in err (and neither
 * *dflt nor *out is changed). */
int hostopt_parse(const char *line, struct hostopt *dflt, struct hostopt *out,
		  char *err, size_t errlen);

/* A whole hostfile: its hosts in file order (deferred ones included), and
 * dflt, the defaults in force after its last line (for hosts added later
 * that the file does not name). */
struct hostfile {
	struct hostopt *hosts;
	int n;
	struct hostopt dflt;
};

/* Loads a whole file; -1 with "path:line: message" (or "path: why" if it
 * cannot be read) in err.  A name listed twice is an error.  On error *hf
 * is left empty (nothing to free). */
int hostfile_load(const char *path, struct hostfile *hf, char *err,
		  size_t errlen);
void hostfile_free(struct hostfile *hf);

/* The host of that name in the file, or NULL. */
const struct hostopt *hostfile_find(const struct hostfile *hf,
				    const char *name);

#endif /* PVMD_HOSTFILE_H */
